/**
 * What `MarkFailed` does: records `failed` with stop reason `error` (and the error that got there) unless the
 * run already ended, answering any open tool calls so the transcript stays valid. A run that ended deliverable
 * but has no delivery (Deliver failed for good) gets a `refused` delivery record saying why. Idempotent.
 */
import type { Run } from '../schemas/run.ts';
import { cutText } from './byte-caps.ts';
import { isDeliverable } from './degraded.ts';
import { recordDeliveryFailure } from './delivery-failure.ts';
import { endRun } from './end-run.ts';
import type { Clock } from './ports.ts';
import type { RunStore } from './store-port.ts';
import { storedError } from './stored-error.ts';

export async function markRunFailed(
  deps: { store: RunStore; clock: Clock },
  args: { runId: string; error?: { name: string; message: string } },
): Promise<Run | undefined> {
  // As the run stores it (run-handle.ts does the same), so the audit entry and the notice quote the stored name.
  const error = storedError(args.error ?? { name: 'Error', message: 'the run failed' });
  // Deliver failed for good on a run that already ended: record why it was not delivered (run stays ended).
  const current = await deps.store.getRun(args.runId);
  if (current !== undefined && isDeliverable(current) && current.delivery === undefined)
    return recordDeliveryFailure(deps, args.runId, error);
  return endRun(deps, {
    runId: args.runId,
    status: 'failed',
    stopReason: 'error',
    error,
    why: `the run failed (${error.name})`,
    actor: 'system',
    audit: [
      { type: 'error', actor: 'system', data: { name: error.name, message: cutText(error.message, 1000) } },
    ],
  });
}
