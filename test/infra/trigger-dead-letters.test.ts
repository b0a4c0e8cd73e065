/**
 * The trigger paths keep what they could not deliver: start-run's asynchronous invocations end in the trigger
 * dead-letter queue (Lambda's on-failure destination), the Scheduler role and the runtime's rules may send to
 * it, it keeps messages 14 days encrypted, and an alarm fires on its first message.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../infra/constructs/env-names.ts';
import { defaultRuntime, flatTemplate, logicalId } from './synth.ts';

describe('Trigger dead-letter queue', () => {
  const { stack, template } = defaultRuntime();
  const runtime = stack.runtime;
  const queueId = logicalId(runtime.triggers.deadLetters.queue);
  const queueArn = `\${${queueId}.Arn}`;
  const flat = flatTemplate(template);

  it('keeps messages 14 days with SQS-managed encryption', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      MessageRetentionPeriod: 1_209_600,
      SqsManagedSseEnabled: true,
    });
    expect(template.toJSON().Resources[queueId].Properties).toMatchObject({
      MessageRetentionPeriod: 1_209_600,
    });
  });

  it("is start-run's on-failure destination for asynchronous invocations", () => {
    const startRun = logicalId(runtime.functions['start-run'].function);
    flat.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: `\${${startRun}}`,
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: queueArn } },
    });
  });

  it('admits the Scheduler role, and EventBridge only for the runtime rules of this account', () => {
    const schedulerRole = logicalId(runtime.triggers.schedulerRole);
    flat.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [`\${${schedulerRole}}`],
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Action: 'sqs:SendMessage', Resource: queueArn })]),
      },
    });
    flat.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [`\${${queueId}}`],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'events.amazonaws.com' },
            Action: 'sqs:SendMessage',
            Resource: queueArn,
            Condition: {
              ArnLike: {
                'aws:SourceArn': `arn:\${AWS::Partition}:events:\${AWS::Region}:\${AWS::AccountId}:rule/\${${logicalId(runtime.triggers.eventBus)}}/wf-*`,
              },
              StringEquals: { 'aws:SourceAccount': `\${AWS::AccountId}` },
            },
          }),
        ]),
      },
    });
  });

  it('tells the trigger sync its ARN and alarms on its first message', () => {
    const writer = logicalId(runtime.functions['workflow-write'].function);
    const env = flat.toJSON().Resources[writer].Properties.Environment.Variables;
    expect(env[ENV.triggerDeadLetterQueueArn]).toBe(queueArn);
    flat.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Dimensions: [{ Name: 'QueueName', Value: `\${${queueId}.QueueName}` }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });
});
