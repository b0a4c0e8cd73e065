/**
 * `ExecutionEndedDeadLetters`: the queue that keeps an "Execution Status Change" event the execution-ended rules
 * could not hand over, instead of dropping it (a lost event leaves its run `running` for good). Two places could
 * lose it:
 * - EventBridge could not invoke the function (after the rule target's retry policy, or at once for a missing
 *   permission): the rule target's `DeadLetterConfig`
 *   (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html). EventBridge sends as the service:
 *   the target's `deadLetterQueue` adds the queue policy statement for `events.amazonaws.com`, limited to that
 *   rule (`ArnEquals aws:SourceArn`).
 * - The function ran and failed all of Lambda's attempts (2 retries by default): Lambda discards the event
 *   unless an on-failure destination is set
 *   (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html,
 *   https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-retain-records.html). Lambda sends with the
 *   function's role (the destination grants it `sqs:SendMessage` on this queue only). mark-failed and external
 *   are invoked asynchronously by these rules only; the state machines invoke them synchronously, which no
 *   destination affects.
 * Same queue settings as the trigger dead-letter queue (trigger-dead-letters.ts): 14 days, SSE-SQS, SSL only.
 * The depth alarm is in `Observability`; redriving is in docs/state-machine.md.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deadLetterQueue } from './trigger-dead-letters.ts';

/** The dead-letter queue of the execution-ended rules and of their functions' asynchronous invocations. */
export class ExecutionEndedDeadLetters extends Construct {
  /** The queue. */
  public readonly queue: sqs.Queue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.queue = deadLetterQueue(this, 'the execution-ended rules');
  }

  /** Makes the queue `fn`'s on-failure destination for asynchronous invocations (2 retries, Lambda's default). */
  keepFailuresOf(fn: lambda.IFunction): void {
    // sqs:SendMessage only (`grantSendMessages` adds GetQueueAttributes and GetQueueUrl, which Lambda does not use).
    const onFailure: lambda.IDestination = {
      bind: (_scope, target) => {
        target.addToRolePolicy(
          new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
        );
        return { destination: this.queue.queueArn };
      },
    };
    fn.configureAsyncInvoke({ onFailure, retryAttempts: 2 });
  }
}
