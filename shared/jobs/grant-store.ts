/**
 * Grants in the table: the live head per owner and client (`CLIENT#<owner>#<clientId> / GRANT`) and every
 * version (`GRANT#<grantId> / GRANTV#<v>`), written with their owner-change audit entry in one transaction
 * (shared/store/owner-changes.ts), fenced on the version they replace. A head written before grants were per
 * owner (`CLIENT#<clientId> / GRANT`) is read for its own owner only, and moved to the per-owner key by the
 * grant's next change (deleted there in the same transaction).
 */
import type { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { definitionHash, type OwnerChangeType } from '../audit/index.ts';
import type { StoreContext } from '../store/client.ts';
import { decodeItem } from '../store/codec.ts';
import { transactWithChange } from '../store/owner-changes.ts';
import { queryPrefix } from '../store/reads.ts';
import { TABLE_KEYS } from '../store/table.ts';
import { GrantChangeError } from './errors.ts';
import { type GrantHead, getGrantHead } from './grant-head.ts';
import { type GrantRecord, GrantRecordSchema, grantIndexKeys, jobKeys } from './records.ts';

export { type GrantHead, getGrantHead } from './grant-head.ts';

/** `owner`'s live grant of `clientId`, wherever it is stored. */
export const getGrantRecord = async (
  ctx: StoreContext,
  owner: string,
  clientId: string,
): Promise<GrantRecord | undefined> => (await getGrantHead(ctx, owner, clientId))?.record;

/** Every version of a grant, oldest first. */
export const listGrantVersions = (ctx: StoreContext, grantId: string): Promise<GrantRecord[]> =>
  queryPrefix(ctx, `GRANT#${grantId}`, 'GRANTV#', GrantRecordSchema);

/** The owner's grants (the by-owner index: eventually consistent). */
export async function listOwnerGrants(ctx: StoreContext, owner: string): Promise<GrantRecord[]> {
  const index = TABLE_KEYS.byOwner;
  const items: GrantRecord[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const response = await ctx.doc.send(
      new QueryCommand({
        TableName: ctx.table,
        IndexName: index.indexName,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: { '#pk': index.partitionKey, '#sk': index.sortKey },
        ExpressionAttributeValues: { ':pk': `OWNER#${owner}`, ':prefix': 'GRANT#' },
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(response.Items ?? []).map((item) => decodeItem(GrantRecordSchema, item)));
    startKey = response.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** A grant as the sweep finds it. */
export type GrantRef = { owner: string; grantId: string; clientId: string };

/** Every grant's owner, id and client, for the sweep (the all-grants index: eventually consistent). */
export async function listAllGrants(ctx: StoreContext): Promise<GrantRef[]> {
  const index = TABLE_KEYS.byWorkflow;
  const ids: GrantRef[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const response = await ctx.doc.send(
      new QueryCommand({
        TableName: ctx.table,
        IndexName: index.indexName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': index.partitionKey },
        ExpressionAttributeValues: { ':pk': 'JOBGRANTS' },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of response.Items ?? [])
      if (
        typeof item.owner === 'string' &&
        typeof item.grantId === 'string' &&
        typeof item.clientId === 'string'
      )
        ids.push({ owner: item.owner, grantId: item.grantId, clientId: item.clientId });
    startKey = response.LastEvaluatedKey;
  } while (startKey);
  return ids;
}

/**
 * Writes `next` as the owner's live grant of the client and as version `next.version`, with its audit entry,
 * in one transaction: conditional on the head being `previous` (or absent, for a first grant). A `previous`
 * under the legacy key is deleted in the same transaction (fenced on its version): the grant moves.
 */
export async function putGrantRecord(
  ctx: StoreContext,
  head_: GrantHead | undefined,
  next: GrantRecord,
  type: OwnerChangeType,
): Promise<void> {
  const previous = head_ && !head_.legacy ? head_.record : undefined;
  const legacy = head_?.legacy ? head_.record : undefined;
  const head = {
    ...jobKeys.grantHead(next.owner, next.clientId),
    ...next,
    ...grantIndexKeys(next.owner, next.clientId, next.grantId),
  };
  await transactWithChange(
    ctx,
    [
      {
        Put: {
          TableName: ctx.table,
          Item: head,
          ...(previous
            ? {
                ConditionExpression: '#owner = :owner AND #version = :version',
                ExpressionAttributeNames: { '#owner': 'owner', '#version': 'version' },
                ExpressionAttributeValues: { ':owner': previous.owner, ':version': previous.version },
              }
            : { ConditionExpression: 'attribute_not_exists(pk)' }),
        },
      },
      {
        Put: {
          TableName: ctx.table,
          Item: { ...jobKeys.grantVersion(next.grantId, next.version), ...next },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...(legacy
        ? [
            {
              Delete: {
                TableName: ctx.table,
                Key: jobKeys.legacyGrantHead(legacy.clientId),
                ConditionExpression: '#owner = :owner AND #version = :version',
                ExpressionAttributeNames: { '#owner': 'owner', '#version': 'version' },
                ExpressionAttributeValues: { ':owner': legacy.owner, ':version': legacy.version },
              },
            },
          ]
        : []),
    ],
    {
      owner: next.owner,
      at: next.updatedAt,
      type,
      author: next.updatedBy,
      workflowId: next.grantId,
      version: next.version,
      data: { clientId: next.clientId, revoked: next.revoked, grantHash: definitionHash(next.grant) },
    },
    (_error: TransactionCanceledException, busy: boolean) =>
      new GrantChangeError(
        'conflict',
        busy ? 'the owner chain is busy; retry' : 'the grant changed concurrently; reload and retry',
        'expectedVersion',
      ),
  );
}
