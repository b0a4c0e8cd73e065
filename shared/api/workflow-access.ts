/** Loading a caller's workflow head and versions (one 404 for foreign and missing), and syncing its trigger. */
import type { WorkflowHead, WorkflowVersion } from '../schemas/workflow-record.ts';
import { WorkflowIdSchema } from '../schemas/workflow-record.ts';
import type { WorkflowStore } from '../store/workflow-store.ts';
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

export const syncTriggers = (
  deps: Pick<ApiDeps, 'triggerSync'>,
  head: WorkflowHead,
  version: WorkflowVersion,
) =>
  deps.triggerSync.sync({
    owner: head.owner,
    workflowId: head.workflowId,
    name: head.name,
    enabled: head.enabled,
    deleted: head.deleted,
    trigger: version.definition.trigger,
  });
