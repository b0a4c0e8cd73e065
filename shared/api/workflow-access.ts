/** Loading a caller's workflow head and versions (one 404 for foreign and missing), and syncing its trigger. */
import type { WorkflowHead, WorkflowVersion } from '../schemas/workflow-record.ts';
import { WorkflowIdSchema } from '../schemas/workflow-record.ts';
import type { WorkflowStore } from '../store/workflow-store.ts';
import { headRev } from '../store/workflows.ts';
import { TriggerSyncError, TriggerSyncSupersededError } from '../triggers-sync/errors.ts';
import type { ApiDeps } from './deps.ts';
import { notFound } from './errors.ts';

/** The live head of one of `owner`'s workflows; a malformed, foreign, missing or deleted id is the same 404. */
export async function loadHead(
  deps: { store: Pick<WorkflowStore, 'getWorkflowHead'> },
  owner: string,
  workflowId: string,
): Promise<WorkflowHead> {
  if (!WorkflowIdSchema.safeParse(workflowId).success) throw notFound('workflow');
  const head = await deps.store.getWorkflowHead(owner, workflowId);
  if (!head || head.deleted) throw notFound('workflow');
  return head;
}

export async function loadVersion(
  deps: { store: Pick<WorkflowStore, 'getWorkflowVersion'> },
  head: WorkflowHead,
  version: number,
): Promise<WorkflowVersion> {
  const found = await deps.store.getWorkflowVersion(head.owner, head.workflowId, version);
  if (!found) throw notFound('version');
  return found;
}

/** How often a sync is redone when the head keeps moving under it (each round reads the head again). */
export const SYNC_ROUNDS = 4;

/**
 * Makes a workflow's triggers match its head as it is now: reads the head (strongly consistent, shared/store/
 * reads.ts) and its latest published version, and syncs that state with the head's revision. The head a route
 * wrote is not what it syncs: between its write and its sync another write may have committed and synced, and
 * syncing the older snapshot after it would undo it (a disable landing after the enable that followed it).
 *
 * When the head moved on during the sync (the trigger index's fence failed: `TriggerSyncSupersededError`),
 * the AWS calls may have landed after the newer head's own sync, so the sync is redone from a new read, up to
 * `SYNC_ROUNDS` times. A sync that reaches the index fence without it failing wrote every side from a head
 * still current after its AWS calls. The AWS calls are idempotent for one state and last-writer-wins (no
 * condition on them exists), so redoing them is harmless and the last round decides: UpdateSchedule
 * "uses all values ... and overrides the existing schedule"
 * (https://docs.aws.amazon.com/scheduler/latest/APIReference/API_UpdateSchedule.html), and PutRule on an
 * existing rule "is replaced with what you specify"
 * (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutRule.html). On AWS the index sync runs
 * after the AWS one (functions/api.ts, functions/workflow-write.ts: `combineTriggerSyncs(aws, local)`), so its
 * fence covers both.
 */
export async function syncTriggers(
  deps: Pick<ApiDeps, 'triggerSync'> & {
    store: Pick<WorkflowStore, 'getWorkflowHead' | 'getWorkflowVersion'>;
  },
  owner: string,
  workflowId: string,
): Promise<void> {
  for (let round = 1; ; round++) {
    const head = await deps.store.getWorkflowHead(owner, workflowId);
    if (!head) return;
    const version = await deps.store.getWorkflowVersion(owner, workflowId, head.latestVersion);
    if (!version) {
      throw new TriggerSyncError(workflowId, `the latest version ${head.latestVersion} was not found`);
    }
    try {
      await deps.triggerSync.sync({
        owner: head.owner,
        workflowId: head.workflowId,
        name: head.name,
        enabled: head.enabled,
        deleted: head.deleted,
        trigger: version.definition.trigger,
        rev: headRev(head),
      });
      return;
    } catch (error) {
      if (!(error instanceof TriggerSyncSupersededError)) throw error;
      if (round >= SYNC_ROUNDS) {
        throw new TriggerSyncError(workflowId, `the head kept changing over ${SYNC_ROUNDS} syncs`, {
          cause: error,
        });
      }
    }
  }
}
