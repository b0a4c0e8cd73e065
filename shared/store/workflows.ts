/** Workflows: a head per workflow (live policy) and immutable numbered versions. */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
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
import { decodeToken, encodeToken, getItem, type Page, queryPrefix } from './reads.ts';

/** The head changed since it was read (a concurrent new version or toggle). */
export class WorkflowConflictError extends Error {
  constructor(workflowId: string, options?: { cause?: unknown }) {
    super(`workflow ${workflowId} changed concurrently; reload and retry`, options);
    this.name = 'WorkflowConflictError';
  }
}

export async function putNewWorkflow(
  ctx: StoreContext,
  head: WorkflowHead,
  version: WorkflowVersion,
): Promise<void> {
  try {
    await ctx.doc.send(
      new TransactWriteCommand({
        TransactItems: [
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
        ],
      }),
    );
  } catch (error) {
    if (error instanceof TransactionCanceledException) {
      throw new AlreadyExistsError(`a workflow named '${head.name}'`, { cause: error });
    }
    throw error;
  }
}

/** Appends version `previous.latestVersion + 1`, fenced on the head's current latest version. */
export async function putNextVersion(
  ctx: StoreContext,
  previous: WorkflowHead,
  head: WorkflowHead,
  version: WorkflowVersion,
): Promise<void> {
  try {
    await ctx.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: ctx.table,
              Item: { ...keys.workflowHead(head.owner, head.workflowId), ...head },
              ConditionExpression: 'latestVersion = :latest AND deleted = :false',
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
        ],
      }),
    );
  } catch (error) {
    if (error instanceof TransactionCanceledException)
      throw new WorkflowConflictError(head.workflowId, { cause: error });
    throw error;
  }
}

/** Replaces the head (enable/disable/delete), fenced on what was read. */
export async function putHead(
  ctx: StoreContext,
  previous: WorkflowHead,
  head: WorkflowHead,
  releaseName = false,
): Promise<void> {
  const headPut = {
    Put: {
      TableName: ctx.table,
      Item: { ...keys.workflowHead(head.owner, head.workflowId), ...head },
      ConditionExpression: 'updatedAt = :updatedAt AND latestVersion = :latest',
      ExpressionAttributeValues: { ':updatedAt': previous.updatedAt, ':latest': previous.latestVersion },
    },
  };
  try {
    await ctx.doc.send(
      new TransactWriteCommand({
        TransactItems: releaseName
          ? [headPut, { Delete: { TableName: ctx.table, Key: keys.workflowName(head.owner, head.name) } }]
          : [headPut],
      }),
    );
  } catch (error) {
    if (error instanceof TransactionCanceledException)
      throw new WorkflowConflictError(head.workflowId, { cause: error });
    throw error;
  }
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
