/** Starts and stops run executions on the state machine (api, start-run; graph-wait starts child runs). */
import { SFNClient } from '@aws-sdk/client-sfn';
import { ENV } from '../../../infra/constructs/env-names.ts';
import type { ExecutionsPort } from '../../runs/ports.ts';
import { sfnExecutionStops, sfnExecutions } from '../executions-sfn.ts';
import { awsClient } from './client.ts';
import { awsEnv } from './env.ts';

let executions: ExecutionsPort | undefined;

export function awsExecutions(): ExecutionsPort {
  const env = awsEnv();
  const arn = env[ENV.stateMachineArn];
  if (!arn) throw new Error(`${ENV.stateMachineArn} is not set`);
  executions ??= sfnExecutions(
    awsClient(new SFNClient({})),
    arn,
    env[ENV.graphStateMachineArn],
    env[ENV.externalStateMachineArn],
  );
  return executions;
}

let stops: Pick<ExecutionsPort, 'stop'> | undefined;

/** StopExecution by ARN, without a state machine's ARN (mark-failed, graph-advance: a graph's agent children). */
export function awsExecutionStops(): Pick<ExecutionsPort, 'stop'> {
  stops ??= sfnExecutionStops(awsClient(new SFNClient({})));
  return stops;
}
