/**
 * Every log group an AWS service delivers to (an HTTP API stage's access logs, a state machine's execution logs)
 * is named under /aws/vendedlogs/: otherwise turning its logging on adds the group to the account's one
 * CloudWatch Logs resource policy (5120 characters, shared by every stack in the account)
 * (https://docs.aws.amazon.com/step-functions/latest/dg/bp-cwl.html,
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-logging.html).
 */
import { describe, expect, it } from 'vitest';
import { VENDED_LOGS_ROOT } from '../../infra/constructs/vended-logs.ts';
import { flatTemplate, synthRuntime } from './synth.ts';

/** `${Id.Arn}` (a flattened Fn::GetAtt) → `Id`. */
const groupIdOf = (arn: unknown): string => {
  const match = /^\$\{([A-Za-z0-9]+)\.Arn\}$/.exec(String(arn));
  if (match?.[1] === undefined) throw new Error(`not a log group of this stack: ${JSON.stringify(arn)}`);
  return match[1];
};

describe('Delivered log groups', () => {
  it('are all named under /aws/vendedlogs/: API access logs and every state machine', () => {
    const template = flatTemplate(synthRuntime().template);
    const stages = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    const machines = Object.values(template.findResources('AWS::StepFunctions::StateMachine'));
    const destinations = [
      ...stages.map((stage) => stage.Properties.AccessLogSettings?.DestinationArn),
      ...machines.flatMap((machine) =>
        (machine.Properties.LoggingConfiguration?.Destinations ?? []).map(
          (each: { CloudWatchLogsLogGroup: { LogGroupArn: unknown } }) =>
            each.CloudWatchLogsLogGroup.LogGroupArn,
        ),
      ),
    ];
    // One stage and three machines (run, graph, external), each logging somewhere.
    expect([stages.length, machines.length, destinations.length]).toEqual([1, 3, 4]);
    const groups = template.findResources('AWS::Logs::LogGroup');
    const names = destinations.map((arn) => String(groups[groupIdOf(arn)]?.Properties.LogGroupName));
    for (const name of names) expect(name.startsWith(VENDED_LOGS_ROOT)).toBe(true);
    expect(VENDED_LOGS_ROOT).toBe('/aws/vendedlogs/');
    // The access log group has a service segment of its own, apart from the machines' `states/`.
    expect(names.filter((name) => name.startsWith('/aws/vendedlogs/apigateway/WfTest-'))).toHaveLength(1);
  });
});
