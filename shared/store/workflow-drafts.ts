/**
 * Draft versions: saved as `latestVersion + 1` with status `draft` (at most one open draft per workflow),
 * replaced in place, then published, which makes the version immutable and the head's latest. Every write is
 * conditional on what was read (the head's revision, latest and draft numbers, the draft's `updatedAt`) and audited in
 * the owner's workflow-change chain in the same transaction.
 */
import type { WorkflowHead, WorkflowVersion } from '../schemas/workflow-record.ts';
import type { StoreContext } from './client.ts';
import { keys } from './keys.ts';
import { draftChange, type TransactItem, transactWithChange } from './owner-changes.ts';
import {
  headTakingNextNumber,
  nextRevision,
  revFence,
  versionPut,
  WorkflowConflictError,
} from './workflows.ts';

/** The draft as it was read must still be the open draft, unchanged (same `updatedAt`). */
const draftFence = (previous: WorkflowVersion) => ({
  ConditionExpression: '#status = :draft AND updatedAt = :updatedAt',
  ExpressionAttributeNames: { '#status': 'status' },
  ExpressionAttributeValues: { ':draft': 'draft', ':updatedAt': previous.updatedAt ?? previous.createdAt },
});

const conflict = (workflowId: string) => (error: unknown) =>
  new WorkflowConflictError(workflowId, { cause: error });

/**
 * Saves a new draft: the head gains `draftVersion`, fenced on the head as read (its revision: no draft open,
 * the latest version read, nothing toggled since). Returns the head as written.
 */
export async function putDraft(
  ctx: StoreContext,
  previous: WorkflowHead,
  head: WorkflowHead,
  draft: WorkflowVersion,
  author: string,
): Promise<WorkflowHead> {
  const written = nextRevision(previous, head);
  const items: TransactItem[] = [
    headTakingNextNumber(ctx, previous, written),
    versionPut(ctx, draft, { ConditionExpression: 'attribute_not_exists(pk)' }),
  ];
  await transactWithChange(
    ctx,
    items,
    draftChange(head, draft, 'workflow_draft_saved', author, draft.createdAt),
    conflict(head.workflowId),
  );
  return written;
}

/** Replaces an open draft in place, fenced on the draft read and on the head still pointing at it. */
export async function replaceDraft(
  ctx: StoreContext,
  head: WorkflowHead,
  previous: WorkflowVersion,
  draft: WorkflowVersion,
  author: string,
) {
  const items: TransactItem[] = [
    {
      ConditionCheck: {
        TableName: ctx.table,
        Key: keys.workflowHead(head.owner, head.workflowId),
        ConditionExpression: 'draftVersion = :version AND deleted = :false',
        ExpressionAttributeValues: { ':version': draft.version, ':false': false },
      },
    },
    versionPut(ctx, draft, draftFence(previous)),
  ];
  const at = draft.updatedAt ?? draft.createdAt;
  await transactWithChange(
    ctx,
    items,
    draftChange(head, draft, 'workflow_draft_updated', author, at),
    conflict(head.workflowId),
  );
}

/**
 * Publishes the open draft: the version becomes immutable and the head's latest; the draft slot closes. Fenced
 * on the head as read (its revision) and the draft as read. Returns the head as written.
 */
export async function publishDraft(
  ctx: StoreContext,
  previous: WorkflowHead,
  head: WorkflowHead,
  draft: WorkflowVersion,
  published: WorkflowVersion,
): Promise<WorkflowHead> {
  const written = nextRevision(previous, head);
  const fence = revFence(previous);
  const items: TransactItem[] = [
    {
      Put: {
        TableName: ctx.table,
        Item: { ...keys.workflowHead(head.owner, head.workflowId), ...written },
        ConditionExpression: `${fence.condition} AND latestVersion = :latest AND draftVersion = :version AND deleted = :false`,
        ExpressionAttributeValues: {
          ...fence.values,
          ':latest': previous.latestVersion,
          ':version': published.version,
          ':false': false,
        },
      },
    },
    versionPut(ctx, published, draftFence(draft)),
  ];
  const change = draftChange(
    head,
    published,
    'workflow_version_published',
    published.publishedBy ?? 'system',
    head.updatedAt,
  );
  await transactWithChange(ctx, items, change, conflict(head.workflowId));
  return written;
}
