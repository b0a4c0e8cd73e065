/**
 * `TriggerDeadLetters`: the queue that keeps a trigger that could not start a run, instead of dropping it.
 * Schedules and rules invoke start-run asynchronously, and three places could lose the invocation:
 * - EventBridge Scheduler could not invoke the function (after its target retry policy): the schedule target's
 *   `DeadLetterConfig` (https://docs.aws.amazon.com/scheduler/latest/UserGuide/configuring-schedule-dlq.html).
 *   Scheduler sends with the schedule's execution role, which needs `sqs:SendMessage` on the queue.
 * - EventBridge could not invoke it (after the rule target's retry policy, or at once for a missing
 *   permission): the rule target's `DeadLetterConfig`
 *   (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html). EventBridge sends as the
 *   service, so the queue's resource policy admits `events.amazonaws.com`, for the runtime's rules only
 *   (`aws:SourceArn`, `aws:SourceAccount`).
 * - The function ran and failed all of Lambda's attempts (2 retries by default): Lambda discards the event
 *   unless an on-failure destination is set
 *   (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html,
 *   https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html). Lambda sends with the
 *   function's role (the destination grants it).
 * Messages stay 14 days, SQS's maximum (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html,
 * `MessageRetentionPeriod`), encrypted with SQS-managed keys (SSE-SQS), which all three services can send to
 * without a key policy. The depth alarm is in `Observability`; redriving is in docs/event-triggers.md.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledge } from './nag.ts';

/** How long an undelivered trigger is kept: SQS's longest retention. */
export const TRIGGER_DEAD_LETTER_RETENTION = Duration.days(14);

/**
 * A dead-letter queue: SQS-managed encryption, TLS only, kept 14 days. It is itself the dead-letter queue of
 * `what`, so it has none of its own (cdk-nag AwsSolutions-SQS3).
 */
export function deadLetterQueue(scope: Construct, what: string): sqs.Queue {
  const queue = new sqs.Queue(scope, 'Queue', {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: TRIGGER_DEAD_LETTER_RETENTION,
  });
  acknowledge(queue, 'AwsSolutions-SQS3', {
    reason: `This queue is itself the dead-letter queue of ${what}.`,
  });
  return queue;
}

/** Properties of `TriggerDeadLetters`. */
export interface TriggerDeadLettersProps {
  /** The function schedules and rules invoke asynchronously (functions/start-run.ts). */
  readonly startRunFunction: lambda.IFunction;
  /** The role Scheduler assumes for the workflows' schedules. */
  readonly schedulerRole: iam.IRole;
  /** ARN pattern of the rules created at run time (`rule/<bus>/<prefix>*`). */
  readonly ruleArnPattern: string;
}

/** The dead-letter queue of every trigger path, with each sender's permission. */
export class TriggerDeadLetters extends Construct {
  /** The queue. */
  public readonly queue: sqs.Queue;

  constructor(scope: Construct, id: string, props: TriggerDeadLettersProps) {
    super(scope, id);
    this.queue = deadLetterQueue(this, 'the trigger paths');

    // sqs:SendMessage only (`grantSendMessages` adds GetQueueAttributes and GetQueueUrl, which no sender uses).
    const sendOnly = new iam.PolicyStatement({
      actions: ['sqs:SendMessage'],
      resources: [this.queue.queueArn],
    });
    props.schedulerRole.addToPrincipalPolicy(sendOnly);
    this.queue.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'WorkflowRulesDeadLetters',
        principals: [new iam.ServicePrincipal('events.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': props.ruleArnPattern },
          StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
        },
      }),
    );
    const onFailure: lambda.IDestination = {
      bind: (_scope, fn) => {
        fn.addToRolePolicy(sendOnly);
        return { destination: this.queue.queueArn };
      },
    };
    props.startRunFunction.configureAsyncInvoke({ onFailure, retryAttempts: 2 });
  }
}
