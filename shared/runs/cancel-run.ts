/** Cancelling a run: a fenced transition to `cancelled`, then the execution is stopped. */
import { endRun } from '../core/end-run.ts';
import type { Clock } from '../core/ports.ts';
import { requestExternalCancel } from '../external/run/request-cancel.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import type { DynamoStore } from '../store/index.ts';
import type { ExecutionsPort } from './ports.ts';

export type CancelRunDeps = { store: DynamoStore; executions: ExecutionsPort; clock: Clock };

/** Cancels a run of `owner`. Returns undefined for a missing or foreign run; a finished run is returned as is. */
export async function cancelRun(
  deps: CancelRunDeps,
  args: { owner: string; runId: string; actor: string },
): Promise<Run | undefined> {
  const before = await deps.store.getRun(args.runId);
  // An external run is cancelled through its engine by its own execution (shared/external/run/request-cancel.ts).
  if (before?.kind === 'external' && before.owner === args.owner && !isTerminalRunStatus(before.status))
    return requestExternalCancel(deps, before, args.actor);
  const run = await endRun(deps, {
    runId: args.runId,
    status: 'cancelled',
    stopReason: 'cancelled',
    why: 'the run was cancelled',
    actor: args.actor,
    audit: [{ type: 'cancel_requested', actor: args.actor, data: {} }],
    accept: (candidate) => candidate.owner === args.owner,
  });
  // Stop the execution only when this call ended the run (a finished run has no execution to stop).
  if (run?.status === 'cancelled' && before?.status !== 'cancelled' && run.executionArn) {
    await deps.executions.stop(run.executionArn, 'cancelled by owner');
  }
  return run;
}
