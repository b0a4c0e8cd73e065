/**
 * `JobsSweep`: runs the delegated-jobs sweep function (functions/jobs-sweep.ts) every minute. It gives back
 * the slots of jobs whose runs ended, starts what a crash left unstarted and promotes queued jobs
 * (docs/jobs.md). A scheduled EventBridge rule on the default bus; the Lambda target adds the function's
 * resource policy for events.amazonaws.com, limited to this rule's ARN
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-use-resource-based.html#eb-lambda-permissions).
 */
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

export interface JobsSweepProps {
  /** The sweep function. */
  readonly sweepFunction: lambda.IFunction;
  /** How often the sweep runs. @default Duration.minutes(1) (the shortest rate a rule takes) */
  readonly interval?: Duration;
}

export class JobsSweep extends Construct {
  public readonly rule: events.Rule;
  constructor(scope: Construct, id: string, props: JobsSweepProps) {
    super(scope, id);
    this.rule = new events.Rule(this, 'Schedule', {
      description: 'Delegated jobs: settle ended runs, promote queued jobs',
      // Rate schedules, 1 minute at least: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-scheduled-rule-pattern.html
      schedule: events.Schedule.rate(props.interval ?? Duration.minutes(1)),
      // A missed sweep is not retried: the next one, a minute later, does the same work.
      targets: [new targets.LambdaFunction(props.sweepFunction, { retryAttempts: 0 })],
    });
  }
}
