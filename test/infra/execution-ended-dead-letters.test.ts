/**
 * An execution-ended event that could not end its run is kept, not dropped: both rule targets have a
 * dead-letter queue that admits EventBridge for those rules only, mark-failed's and external's asynchronous
 * invocations end there after Lambda's retries (their roles may send to it), the queue keeps messages 14 days
 * encrypted over SSL only, and an alarm fires on its first message. Before, a lost event left a run `running`.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { defaultRuntime, flatTemplate, logicalId } from './synth.ts';

describe('Execution-ended dead-letter queue', () => {
  const { stack, template } = defaultRuntime();
  const runtime = stack.runtime;
  const ended = runtime.executionEnded;
  const queueId = logicalId(ended.deadLetters.queue);
  const queueArn = `\${${queueId}.Arn}`;
  const flat = flatTemplate(template);
  const resources = flat.toJSON().Resources as Record<
    string,
    { Type: string; Properties: Record<string, unknown> }
  >;

  it('keeps messages 14 days, SQS-managed encryption, SSL only', () => {
    expect(resources[queueId]!.Properties).toMatchObject({
      MessageRetentionPeriod: 1_209_600,
      SqsManagedSseEnabled: true,
    });
    flat.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [`\${${queueId}}`],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('is the dead-letter queue of both rule targets, admitting EventBridge for each rule only', () => {
    for (const rule of [ended.runRule, ended.externalRule]) {
      const ruleId = logicalId(rule);
      const targets = resources[ruleId]!.Properties.Targets as { DeadLetterConfig?: { Arn: string } }[];
      expect(targets.map((target) => target.DeadLetterConfig)).toEqual([{ Arn: queueArn }]);
      flat.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [`\${${queueId}}`],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: 'events.amazonaws.com' },
              Action: 'sqs:SendMessage',
              Resource: queueArn,
              Condition: { ArnEquals: { 'aws:SourceArn': `\${${ruleId}.Arn}` } },
            }),
          ]),
        },
      });
    }
  });

  it("is mark-failed's and external's on-failure destination, and their roles may send to it", () => {
    for (const name of ['mark-failed', 'external'] as const) {
      const fn = runtime.functions[name].function;
      flat.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: `\${${logicalId(fn)}}`,
        MaximumRetryAttempts: 2,
        DestinationConfig: { OnFailure: { Destination: queueArn } },
      });
      flat.hasResourceProperties('AWS::IAM::Policy', {
        Roles: [`\${${logicalId(fn.role!)}}`],
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Action: 'sqs:SendMessage', Resource: queueArn })]),
        },
      });
    }
  });

  it('alarms on its first message', () => {
    flat.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: `\${${queueId}.QueueName}` }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });
});
