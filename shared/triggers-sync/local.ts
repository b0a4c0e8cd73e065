/** The local stack's trigger sync: only the trigger index, which the local ticker and event bus read. */
import { TriggerIndexSupersededError } from '../store/trigger-index.ts';
import type { WorkflowStore } from '../store/workflow-store.ts';
import { TriggerSyncError, TriggerSyncSupersededError } from './errors.ts';
import { indexEntryFor, type TriggerSync } from './port.ts';

/**
 * Keeps the trigger index in step: enabled schedule/event workflows are indexed, everything else removed.
 * With `request.rev`, only while the head is still at that revision: a sync from an older head fails
 * `TriggerSyncSupersededError` and changes nothing.
 */
export function localTriggerSync(
  store: Pick<WorkflowStore, 'putTriggerIndex' | 'deleteTriggerIndex'>,
): TriggerSync {
  return {
    async sync(request) {
      const entry = indexEntryFor(request);
      try {
        if (entry) await store.putTriggerIndex(entry, request.rev);
        else await store.deleteTriggerIndex(request.owner, request.workflowId, request.rev);
      } catch (error) {
        if (error instanceof TriggerIndexSupersededError) {
          throw new TriggerSyncSupersededError(request.workflowId, { cause: error });
        }
        throw new TriggerSyncError(request.workflowId, 'the trigger index could not be updated', {
          cause: error,
        });
      }
    },
  };
}
