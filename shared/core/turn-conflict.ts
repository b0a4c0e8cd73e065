/**
 * What a turn does when a fenced write loses to a concurrent one (RunConflictError): it continues from what
 * is persisted, never from the top. A write that left the turn's progress alone (resume bookkeeping such as
 * the local stack recording a new execution, an approver's decision, an anchor) only moved the revision:
 * the turn's pending write is still right, so it is re-applied on the fresh run, and the paid model answer
 * or the dispatched call's result it carries is kept. A write that moved the progress (a cancel or
 * MarkFailed ending the run, another invocation committing the turn) is not papered over: the conflict
 * propagates and the turn is re-entered from the store (runTurn), which reuses the persisted assistant
 * message and ledger rows, or answers from the committed outcome.
 */
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import type { RunStore } from './store-port.ts';

/** Given the run a write was fenced on, the fresh run to re-apply it to, or undefined to give up. */
export type ConflictRebase = (stale: Run) => Promise<Run | undefined>;

/** The fields only the turn's own progress moves; equal before and after means a side write. */
function progressOf(run: Run): string {
  return JSON.stringify([
    run.status,
    run.turn,
    run.messageCount,
    run.modelCalls,
    run.costUsd,
    run.reservation ?? null,
    run.pendingApprovalIds,
    run.lastNext ?? null,
    run.endedAt ?? null,
  ]);
}

/** Rebases a turn's write onto the fresh run when the concurrent write was a side write (see above). */
export function rebaseOnSideWrites(store: Pick<RunStore, 'getRun'>): ConflictRebase {
  return async (stale) => {
    const fresh = await store.getRun(stale.runId);
    if (!fresh || isTerminalRunStatus(fresh.status)) return undefined;
    return progressOf(fresh) === progressOf(stale) ? fresh : undefined;
  };
}
