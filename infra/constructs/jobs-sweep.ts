/**
 * `JobsSweep`: runs the delegated-jobs sweep function (functions/jobs-sweep.ts) every minute, and as soon as an
 * execution of the run state machine ends. It gives back the slots of jobs whose runs ended, starts what a
 * crash left unstarted and promotes queued jobs (docs/jobs.md). Both are EventBridge rules on the default bus;
 * the Lambda target adds the function's resource policy for events.amazonaws.com, limited to each rule's ARN
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-resource-based.html#eb-lambda-permissions).
 *
 * Why a rule and not a call from Deliver/MarkFailed: those functions are the run machine's own tasks, so
 * granting them StartExecution on it would make the machine depend on itself (a CloudFormation cycle). The
 * rule depends on the machine and the function; nothing depends on the rule.
 */
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';

/**
 * The event Step Functions sends to the default bus when a Standard execution changes status
 * (https://docs.aws.amazon.com/step-functions/latest/dg/eventbridge-integration.html), and the statuses that
 * end an execution. Delivery is best effort
 * (https://docs.aws.amazon.com/eventbridge/latest/ref/events-ref-states.html): the minutely sweep stays.
 */
export const EXECUTION_STATUS_CHANGE = 'Step Functions Execution Status Change';
export const ENDED_EXECUTION_STATUSES = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const;

export interface JobsSweepProps {
  /** The sweep function. */
  readonly sweepFunction: lambda.IFunction;
  /** How often the sweep runs. @default Duration.minutes(1) (the shortest rate a rule takes) */
  readonly interval?: Duration;
  /**
   * The run state machine (delegated jobs run on it): when one of its executions ends, the sweep settles that
   * run's job and promotes the next queued one at once instead of at the next scheduled sweep.
   * @default - no prompt promotion: queued jobs wait for the scheduled sweep
   */
  readonly runStateMachine?: sfn.IStateMachine;
}

export class JobsSweep extends Construct {
  public readonly rule: events.Rule;
  /** Invokes the sweep for one ended execution (absent without `runStateMachine`). */
  public readonly runEndedRule?: events.Rule;
  constructor(scope: Construct, id: string, props: JobsSweepProps) {
    super(scope, id);
    // Both rules invoke the function asynchronously, and Lambda runs an event whose invocation failed (an error,
    // a timeout) two more times by default, one and then two minutes later
    // (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html): a retried sweep would
    // overlap the next scheduled one. No retries: the next minute's sweep does the same work. The rule targets'
    // retryAttempts below are EventBridge's, for delivering the event to Lambda, not for the function's errors.
    props.sweepFunction.configureAsyncInvoke({ retryAttempts: 0 });
    this.rule = new events.Rule(this, 'Schedule', {
      description: 'Delegated jobs: settle ended runs, promote queued jobs',
      // Rate schedules, 1 minute at least: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-scheduled-rule-pattern.html
      schedule: events.Schedule.rate(props.interval ?? Duration.minutes(1)),
      // A missed sweep is not retried: the next one, a minute later, does the same work.
      targets: [new targets.LambdaFunction(props.sweepFunction, { retryAttempts: 0 })],
    });
    if (props.runStateMachine) {
      this.runEndedRule = new events.Rule(this, 'RunEnded', {
        description: "Delegated jobs: settle an ended run's job and promote the next queued one",
        eventPattern: {
          source: ['aws.states'],
          detailType: [EXECUTION_STATUS_CHANGE],
          detail: {
            stateMachineArn: [props.runStateMachine.stateMachineArn],
            status: [...ENDED_EXECUTION_STATUSES],
          },
        },
        // A lost or failed invocation is caught by the scheduled sweep; EventBridge's two retries cover a
        // delivery that failed.
        targets: [new targets.LambdaFunction(props.sweepFunction, { retryAttempts: 2 })],
      });
    }
  }
}
