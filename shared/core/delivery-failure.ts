/**
 * A delivery that failed for good: Deliver threw something other than a refusal on every attempt the state
 * machine allowed, and the `Catch` routed to MarkFailed. The run already ended (`done`, or `denied` degraded),
 * so MarkFailed records *why it was not delivered* on the run, audits it and anchors the final head: a
 * deliverable run is delivered exactly once, or says why it could not be (never silently undelivered).
 */
import type { Run } from '../schemas/run.ts';
import { cutText } from './byte-caps.ts';
import { isDeliverable } from './degraded.ts';
import { isoAt, RunHandle } from './engine.ts';
import type { Clock } from './ports.ts';
import { RunConflictError } from './store-errors.ts';
import type { RunStore } from './store-port.ts';

/** Records a failed delivery on a deliverable run that has none; any other run is returned as it is. */
export async function recordDeliveryFailure(
  deps: { store: RunStore; clock: Clock },
  runId: string,
  error: { name: string; message: string },
): Promise<Run | undefined> {
  for (let attempt = 1; ; attempt++) {
    const run = await deps.store.getRun(runId);
    if (run === undefined || !isDeliverable(run) || run.delivery !== undefined) return run;
    const version = await deps.store.getWorkflowVersion(run.owner, run.workflowId, run.workflowVersion);
    const destination = version?.definition.destination.type ?? 'unknown';
    const detail = cutText(`failed: ${error.name}: ${error.message}`, 1000);
    try {
      const handle = new RunHandle(run, deps);
      await handle.commit({
        next: (current) => ({
          ...current,
          delivery: { destination, status: 'refused', at: isoAt(deps.clock), detail },
        }),
        audit: [
          {
            type: 'error',
            actor: 'system',
            data: { name: 'DeliveryFailedError', message: detail, destination },
          },
        ],
      });
      await deps.store.anchorRunHead(handle.run, isoAt(deps.clock));
      return handle.run;
    } catch (caught) {
      if (!(caught instanceof RunConflictError) || attempt >= 3) throw caught;
    }
  }
}
