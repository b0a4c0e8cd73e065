/**
 * An owner cancels an external run: the request is recorded on the run (`external.cancelRequested`, audit
 * `cancel_requested`) in one fenced write and the execution keeps going, because cancelling needs the engine:
 * the next Observe (or Start, before anything was dispatched) calls `adapter.cancel` and records requested,
 * acknowledged and stopped as separate facts, then ends the run `cancelled` (cancel.ts).
 */
import { isoAt, RunHandle } from '../../core/engine.ts';
import type { Clock } from '../../core/ports.ts';
import { RunConflictError } from '../../core/store-errors.ts';
import type { RunStore } from '../../core/store-port.ts';
import type { ExternalRun } from '../../schemas/external-run.ts';
import { isTerminalRunStatus, type Run } from '../../schemas/run.ts';

export async function requestExternalCancel(
  deps: { store: Pick<RunStore, 'commit' | 'getRun'>; clock: Clock },
  run: Run,
  actor: string,
): Promise<Run> {
  let current: Run | undefined = run;
  for (let attempt = 1; current && !isTerminalRunStatus(current.status); attempt++) {
    if (current.external?.cancelRequested) return current;
    try {
      return await new RunHandle(current, deps).commit({
        next: (next) => ({
          ...next,
          external: {
            ...(next.external as ExternalRun),
            cancelRequested: { at: isoAt(deps.clock), by: actor },
          },
        }),
        audit: [{ type: 'cancel_requested', actor, data: { external: true } }],
      });
    } catch (error) {
      if (!(error instanceof RunConflictError) || attempt >= 5) throw error;
      current = await deps.store.getRun(run.runId);
    }
  }
  return current ?? run;
}
