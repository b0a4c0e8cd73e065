/**
 * The run knows its live execution. Its first execution is named after the run (its ARN is derived, not stored:
 * shared/runs/execution-arn.ts); a resumed one is recorded by its ARN when it starts (shared/runs/resume-run.ts).
 * A continue-as-new starts a fresh execution named `<runId>-c<turn>-<md5 of the continuing execution's name>`
 * from the state machine itself (infra/constructs/run-state-machine.ts, CONTINUATION_NAME), so nothing outside
 * it knows that name; the continuation's own first turn does (`$$.Execution.Id`, attempt.ts) and records it with
 * the turn's first commit, a write the turn makes anyway (its budget reservation comes before any model call or
 * dispatch): no request of its own. Until then a cancel stops the execution the run knew (already ended) and the
 * continuation finds the run ended at that first commit, or at its first read, and calls no model.
 * Stored as the name's part after `<runId>-` (at most 38 characters), not as an ARN (~150): every later commit
 * rewrites the run item (docs/data-model.md, "Run item size").
 */
import type { Run } from '../schemas/run.ts';
import { executionNameOf, type TurnAttempt } from './attempt.ts';
import type { ChangePart } from './staged-change.ts';

/** The `continuedAs` of the execution `attempt` runs in, when it is a continuation of `run`. */
export function continuationOf(run: Run, attempt: TurnAttempt | undefined): string | undefined {
  if (!attempt) return undefined;
  const prefix = `${run.runId}-`;
  const name = executionNameOf(attempt.executionId);
  return name.startsWith(`${prefix}c`) ? name.slice(prefix.length) : undefined;
}

/**
 * What records the continuation `attempt` runs in, to ride on the turn's next commit; undefined when the run
 * already names it (every later turn of that execution) or the execution is not a continuation.
 */
export function liveExecutionPart(run: Run, attempt: TurnAttempt | undefined): ChangePart | undefined {
  const continuedAs = continuationOf(run, attempt);
  if (continuedAs === undefined || continuedAs === run.continuedAs) return undefined;
  return {
    next: ({ executionArn: _recorded, ...current }) => ({ ...current, continuedAs }),
  };
}
