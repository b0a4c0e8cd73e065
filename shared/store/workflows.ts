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

/** Appends version `previous.latestVersion + 1`, fenced on the head's current latest version, and audits it. */
export async function putNextVersion(
  ctx: StoreContext,
  previous: WorkflowHead,
  head: WorkflowHead,
  version: WorkflowVersion,
): Promise<void> {
  const items: TransactItem[] = [
    {
      Put: {
        TableName: ctx.table,
        Item: { ...keys.workflowHead(head.owner, head.workflowId), ...head },
        // A published version may not be saved while a draft is open: the draft holds the next number.
        ConditionExpression:
          'latestVersion = :latest AND deleted = :false AND attribute_not_exists(draftVersion)',
        ExpressionAttributeValues: { ':latest': previous.latestVersion, ':false': false },
      },
    },
    {
      Put: {
        TableName: ctx.table,
        Item: { ...keys.workflowVersion(head.owner, head.workflowId, version.version), ...version },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  await transactWithChange(
    ctx,
    items,
    versionChange(head, version, false),
    (error) => new WorkflowConflictError(head.workflowId, { cause: error }),
  );
}

/** Replaces the head (enable/disable/delete), fenced on what was read, and audits it with its author. */
export async function putHead(
  ctx: StoreContext,
  previous: WorkflowHead,
  head: WorkflowHead,
  releaseName: boolean,
  author: string,
): Promise<void> {
  const headPut: TransactItem = {
    Put: {
      TableName: ctx.table,
      Item: { ...keys.workflowHead(head.owner, head.workflowId), ...head },
      ConditionExpression: 'updatedAt = :updatedAt AND latestVersion = :latest',
      ExpressionAttributeValues: { ':updatedAt': previous.updatedAt, ':latest': previous.latestVersion },
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
