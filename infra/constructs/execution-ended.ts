/**
 * `ExecutionEnded`: no run stays `running` because its execution ended outside the state machine's own error
 * handling (MarkFailed throttled past its retries, an operator's StopExecution, the execution's timeout or
 * history limit). "Step Functions catchers are available for Task, Parallel and Map states, but not for
 * top-level state machine execution failures … you might choose to listen for TIMED_OUT events from Standard
 * workflows with an EventBridge bus and invoke an action to handle the failed execution"
 * (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html). Step Functions sends the
 * "Execution Status Change" event to the default bus for every Standard execution
 * (https://docs.aws.amazon.com/step-functions/latest/dg/eventbridge-integration.html), best effort
 * (https://docs.aws.amazon.com/eventbridge/latest/ref/events-ref-states.html).
 *
 * Two rules, on FAILED / ABORTED / TIMED_OUT only (a SUCCEEDED execution always passed a task that ended its
 * run or continued it):
 * - the run and graph machines' → the mark-failed function with the event as it is: it ends the run `failed`
 *   if the execution is the run's current one (shared/runs/execution-ended.ts) and answers as MarkFailed does
 *   (the parent graph step's wait, the owner's notice); a delegated job's slot is given back by the jobs sweep
 *   (its run-ended rule, or the minutely sweep, which settles every job whose run ended).
 * - the external machine's → the external function's `abandon` step (the AbandonExternal task's own input,
 *   built by an input transformer: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-transform-target-input.html):
 *   the engine's execution is asked to cancel before the run ends, and a parent step is answered. An external
 *   run has one execution, named after the run (shared/runs/start-run.ts), so `detail.name` is its run id;
 *   a run that already ended is left alone (shared/external/run/abandon.ts).
 * The Lambda targets add each function's resource policy for events.amazonaws.com, limited to the rule's ARN.
 * An event neither target could hand over, and one whose function failed every attempt, waits in
 * `deadLetters.queue` (execution-ended-dead-letters.ts) for an operator to redrive it (docs/state-machine.md).
 * Neither function depends on a rule, so no dependency cycle: the rules depend on the machines and functions.
 */
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { UNHANDLED_END_STATUSES } from '../../shared/runs/execution-ended.ts';
import { ExecutionEndedDeadLetters } from './execution-ended-dead-letters.ts';
import { EXECUTION_STATUS_CHANGE } from './jobs-sweep.ts';

export interface ExecutionEndedProps {
  /** The run and graph state machines: their ended executions go to `markFailed`. */
  readonly runMachines: readonly sfn.IStateMachine[];
  /** The mark-failed function (functions/mark-failed.ts). */
  readonly markFailed: lambda.IFunction;
  /** The external state machine: its ended executions go to `external`'s abandon step. */
  readonly externalMachine: sfn.IStateMachine;
  /** The external function (functions/external.ts). */
  readonly external: lambda.IFunction;
}

/** What the external rule sends: the AbandonExternal task's payload, with the execution's status as the error. */
export const abandonInputOf = () =>
  events.RuleTargetInput.fromObject({
    runId: events.EventField.fromPath('$.detail.name'),
    step: 'abandon',
    state: {
      error: { Error: 'ExecutionEnded', Cause: events.EventField.fromPath('$.detail.status') },
    },
  });

export class ExecutionEnded extends Construct {
  /** Ended executions of the run and graph machines → mark-failed. */
  public readonly runRule: events.Rule;
  /** Ended executions of the external machine → external (abandon). */
  public readonly externalRule: events.Rule;
  /** Where an event that could not end its run waits (both rules, both functions' async failures). */
  public readonly deadLetters: ExecutionEndedDeadLetters;

  constructor(scope: Construct, id: string, props: ExecutionEndedProps) {
    super(scope, id);
    this.deadLetters = new ExecutionEndedDeadLetters(this, 'DeadLetters');
    const deadLetterQueue = this.deadLetters.queue;
    const pattern = (machines: readonly sfn.IStateMachine[]): events.EventPattern => ({
      source: ['aws.states'],
      detailType: [EXECUTION_STATUS_CHANGE],
      detail: {
        stateMachineArn: machines.map((machine) => machine.stateMachineArn),
        status: [...UNHANDLED_END_STATUSES],
      },
    });
    // Retries cover a throttled function (EventBridge retries asynchronous-invoke failures, up to 24 hours by
    // default; a bounded count here); every handler is idempotent. Past them, the event goes to the queue.
    this.runRule = new events.Rule(this, 'RunOrGraph', {
      description: 'A run or graph execution ended outside MarkFailed: end its run failed',
      eventPattern: pattern(props.runMachines),
      targets: [new targets.LambdaFunction(props.markFailed, { retryAttempts: 8, deadLetterQueue })],
    });
    this.externalRule = new events.Rule(this, 'External', {
      description: "An external run's execution ended outside its steps: cancel the engine, end the run",
      eventPattern: pattern([props.externalMachine]),
      targets: [
        new targets.LambdaFunction(props.external, {
          retryAttempts: 8,
          deadLetterQueue,
          event: abandonInputOf(),
        }),
      ],
    });
    this.deadLetters.keepFailuresOf(props.markFailed);
    this.deadLetters.keepFailuresOf(props.external);
  }
}
