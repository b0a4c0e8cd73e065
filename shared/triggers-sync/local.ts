/** The local stack's trigger sync: only the trigger index, which the local ticker and event bus read. */
import type { WorkflowStore } from '../store/workflow-store.ts';
import { TriggerSyncError } from './errors.ts';
import { indexEntryFor, type TriggerSync } from './port.ts';

/** Keeps the trigger index in step: enabled schedule/event workflows are indexed, everything else removed. */
export function localTriggerSync(
  store: Pick<WorkflowStore, 'putTriggerIndex' | 'deleteTriggerIndex'>,
): TriggerSync {
  return {
    async sync(request) {
      const entry = indexEntryFor(request);
      try {
        if (entry) await store.putTriggerIndex(entry);
        else await store.deleteTriggerIndex(request.owner, request.workflowId);
      } catch (error) {
        throw new TriggerSyncError(request.workflowId, 'the trigger index could not be updated', {
          cause: error,
        });
      }
    },
  };
}
