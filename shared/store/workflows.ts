/** Workflows: a head per workflow (live policy) and immutable numbered versions. */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  type WorkflowHead,
  WorkflowHeadSchema,
  type WorkflowVersion,
  WorkflowVersionSchema,
} from '../schemas/workflow-record.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import { AlreadyExistsError } from './errors.ts';
import { keys, prefixes } from './keys.ts';
import { headChange, type TransactItem, transactWithChange, versionChange } from './owner-changes.ts';
import { decodeToken, encodeToken, getItem, type Page, queryPrefix } from './reads.ts';

/** The head changed since it was read (a concurrent new version or toggle). */
export class WorkflowConflictError extends Error {
  constructor(workflowId: string, options?: { cause?: unknown }) {
    super(`workflow ${workflowId} changed concurrently; reload and retry`, options);
    this.name = 'WorkflowConflictError';
  }
}

/** The revision a head was read with: a head stored before revisions existed is revision 0. */
export const headRev = (head: Pick<WorkflowHead, 'rev'>): number => head.rev ?? 0;

/**
 * The fence of every head write: the stored head still has the revision `previous` was read with (a head
 * without `rev` is revision 0). Every head write sets `rev` one higher (`nextRevision`), so any write between
 * the read and this one (a disable, a new version, a draft) fails this write's condition: a write never puts
 * back fields another write changed meanwhile. `updatedAt` is no fence: two writes in one millisecond on two
 * containers carry the same one.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ConditionExpressions.html
 */
export function revFence(previous: Pick<WorkflowHead, 'rev'>): {
  condition: string;
  values: Record<string, number>;
} {
  const rev = headRev(previous);
  return {
    // Revision 0 is a head stored without `rev` (or, equally, with `rev: 0`).
    condition: rev === 0 ? '(attribute_not_exists(rev) OR rev = :rev)' : 'rev = :rev',
    values: { ':rev': rev },
  };
}

/** The head as written over `previous`: its revision one higher than the one read. */
export const nextRevision = (previous: WorkflowHead, head: WorkflowHead): WorkflowHead => ({
  ...head,
  rev: headRev(previous) + 1,
});

/**
 * The head's write when a new version or a draft takes the next number (`written` is `nextRevision` of
 * `previous`): fenced on the head as read (`revFence`), on the latest version read, not deleted, and with no
 * draft open, since an open draft holds the next number.
 */
export function headTakingNextNumber(
  ctx: StoreContext,
  previous: WorkflowHead,
  written: WorkflowHead,
): TransactItem {
  const fence = revFence(previous);
  return {
    Put: {
      TableName: ctx.table,
      Item: { ...keys.workflowHead(written.owner, written.workflowId), ...written },
      ConditionExpression: `${fence.condition} AND latestVersion = :latest AND deleted = :false AND attribute_not_exists(draftVersion)`,
      ExpressionAttributeValues: { ...fence.values, ':latest': previous.latestVersion, ':false': false },
    },
  };
}

/** The Put of a version item under `condition` (its own key from the version's owner, workflow and number). */
export const versionPut = (
  ctx: StoreContext,
  version: WorkflowVersion,
  condition: Omit<TransactItem['Put'] & object, 'TableName' | 'Item'>,
): TransactItem => ({
  Put: {
    TableName: ctx.table,
    Item: { ...keys.workflowVersion(version.owner, version.workflowId, version.version), ...version },
    ...condition,
  },
});

/** Creates a workflow (head, version 1, name claim) and audits it, in one transaction. */
export async function putNewWorkflow(
  ctx: StoreContext,
  head: WorkflowHead,
  version: WorkflowVersion,
): Promise<void> {
  const items: TransactItem[] = [
    {
      Put: {
        TableName: ctx.table,
        Item: { ...keys.workflowHead(head.owner, head.workflowId), ...head },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: ctx.table,
        Item: { ...keys.workflowVersion(head.owner, head.workflowId, version.version), ...version },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: ctx.table,
        Item: { ...keys.workflowName(head.owner, head.name), workflowId: head.workflowId },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  await transactWithChange(ctx, items, versionChange(head, version, true), (error, busy) =>
    busy
      ? new WorkflowConflictError(head.workflowId, { cause: error })
      : new AlreadyExistsError(`a workflow named '${head.name}'`, { cause: error }),
  );
}

/**
 * Appends version `previous.latestVersion + 1`, fenced on the head as read (its revision), and audits it.
 * Returns the head as written (its `rev` one higher).
 */
export async function putNextVersion(
  ctx: StoreContext,
  previous: WorkflowHead,
  head: WorkflowHead,
  version: WorkflowVersion,
): Promise<WorkflowHead> {
  const written = nextRevision(previous, head);
  const items: TransactItem[] = [
    headTakingNextNumber(ctx, previous, written),
    versionPut(ctx, version, { ConditionExpression: 'attribute_not_exists(pk)' }),
  ];
  await transactWithChange(
    ctx,
    items,
    versionChange(head, version, false),
    (error) => new WorkflowConflictError(head.workflowId, { cause: error }),
  );
  return written;
}

/**
 * Replaces the head (enable/disable/delete), fenced on the head as read (its revision), and audits it with its
 * author. Returns the head as written (its `rev` one higher).
 */
export async function putHead(
  ctx: StoreContext,
  previous: WorkflowHead,
  head: WorkflowHead,
  releaseName: boolean,
  author: string,
): Promise<WorkflowHead> {
  const written = nextRevision(previous, head);
  const fence = revFence(previous);
  const headPut: TransactItem = {
    Put: {
      TableName: ctx.table,
      Item: { ...keys.workflowHead(head.owner, head.workflowId), ...written },
      ConditionExpression: `${fence.condition} AND latestVersion = :latest`,
      ExpressionAttributeValues: { ...fence.values, ':latest': previous.latestVersion },
    },
  };
  const items: TransactItem[] = releaseName
    ? [headPut, { Delete: { TableName: ctx.table, Key: keys.workflowName(head.owner, head.name) } }]
    : [headPut];
  await transactWithChange(
    ctx,
    items,
    headChange(previous, head, author),
    (error) => new WorkflowConflictError(head.workflowId, { cause: error }),
  );
  return written;
}

export const getWorkflowHead = (ctx: StoreContext, owner: string, workflowId: string) =>
  getItem(ctx, keys.workflowHead(owner, workflowId), WorkflowHeadSchema);

export const getWorkflowVersion = (ctx: StoreContext, owner: string, workflowId: string, version: number) =>
  getItem(ctx, keys.workflowVersion(owner, workflowId, version), WorkflowVersionSchema);

export const listWorkflowVersions = (ctx: StoreContext, owner: string, workflowId: string) =>
  queryPrefix(ctx, `OWNER#${owner}`, prefixes.workflowVersion(workflowId), WorkflowVersionSchema);

/** Workflows of one owner, not deleted, one page at a time. */
export async function listWorkflowHeads(
  ctx: StoreContext,
  owner: string,
  page: { limit?: number; nextToken?: string } = {},
): Promise<Page<WorkflowHead>> {
  const response = await ctx.doc.send(
    new QueryCommand({
      TableName: ctx.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      FilterExpression: 'deleted = :false',
      ExpressionAttributeValues: {
        ':pk': `OWNER#${owner}`,
        ':prefix': prefixes.workflowHead,
        ':false': false,
      },
      Limit: page.limit ?? 50,
      ExclusiveStartKey: decodeToken(page.nextToken),
    }),
  );
  const nextToken = encodeToken(response.LastEvaluatedKey);
  return {
    items: (response.Items ?? []).map((item) => decodeItem(WorkflowHeadSchema, item)),
    ...(nextToken ? { nextToken } : {}),
  };
}
