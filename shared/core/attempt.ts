/**
 * Which attempt of its `Turn` state an invocation is, as Step Functions reports it in the context object
 * (`$$.State.RetryCount`, `$$.Execution.RedriveCount`, `$$.Execution.Id`:
 * https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html). RetryCount is 0 on a
 * state's first attempt and counts the retries of that entry; a new entry starts again at 0.
 *
 * It decides one thing: whether the reservation the previous turn committed for this turn ("ahead", in the
 * same transaction as its commit; for turn 0, the run's creation: first-reservation.ts) may pay for this
 * turn's model call, or may already have paid for one. Only the first attempt of the entry, in the execution
 * that made the reservation (for turn 0, the run's first execution, named after the run), never redriven, that
 * has not called the model yet, knows that no invocation of this turn used it. Every other case (a retry after a
 * crash that may have followed a paid call, a redrive, an execution started by a restart, a re-entry after
 * a lost race) counts the reservation as spent and reserves again: never free.
 */
import type { Run } from '../schemas/run.ts';

export type TurnAttempt = {
  /** `$$.State.RetryCount`: 0 on the first attempt of this entry into the Turn state. */
  retryCount: number;
  /** `$$.Execution.RedriveCount`: 0 unless the execution was redriven. */
  redriveCount: number;
  /** `$$.Execution.Id`: the execution this invocation belongs to. */
  executionId: string;
};

/**
 * Attempts whose invocation has started a model call. The handler passes one attempt object to every re-entry
 * of the turn it makes (turn.ts, functions/turn.ts), so a re-entry after a call is no longer a first attempt.
 */
const calledModel = new WeakSet<TurnAttempt>();

/** Records that this invocation is about to call the model (before the call: a crash during it counts). */
export function markModelCalled(attempt: TurnAttempt | undefined): void {
  if (attempt) calledModel.add(attempt);
}

/** True when no earlier invocation of this entry into the Turn state can have run (see above). */
export function isFirstAttempt(attempt: TurnAttempt | undefined): attempt is TurnAttempt {
  return (
    attempt !== undefined &&
    attempt.retryCount === 0 &&
    attempt.redriveCount === 0 &&
    !calledModel.has(attempt)
  );
}

/** The run's reservation when it was made ahead for this turn and this invocation may spend it. */
export function unusedAheadReservation(
  run: Run,
  attempt: TurnAttempt | undefined,
): NonNullable<Run['reservation']> | undefined {
  const held = run.reservation;
  if (!held?.ahead || held.turn !== run.turn || !isFirstAttempt(attempt)) return undefined;
  const ahead = held.ahead;
  const ours =
    'executionName' in ahead
      ? isExecutionNamed(attempt.executionId, ahead.executionName)
      : ahead.executionId === attempt.executionId;
  return ours ? held : undefined;
}

/**
 * Whether the execution `executionId` (its ARN, `$$.Execution.Id`) is the one named `name`. A Standard
 * execution's ARN ends in `:<execution name>` (`arn:<partition>:states:<region>:<account>:execution:<state
 * machine>:<name>`, https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html), and a
 * name never holds a colon (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html),
 * so the suffix after the last colon is the whole name: `<runId>-restart-…` is never `<runId>`.
 */
export const isExecutionNamed = (executionId: string, name: string): boolean =>
  executionNameOf(executionId) === name;

/** The name of the execution whose ARN is `executionId` (see isExecutionNamed). */
export const executionNameOf = (executionId: string): string =>
  executionId.slice(executionId.lastIndexOf(':') + 1);
