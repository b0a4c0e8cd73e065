/**
 * Reading an owner's live grant of a client: one read under the per-owner key, and then under the key of before
 * grants were per owner (moved on its next change), which is only ever the same owner's.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { StoreContext } from '../store/client.ts';
import { getItem } from '../store/reads.ts';
import { type GrantRecord, GrantRecordSchema, jobKeys } from './records.ts';

/** A live grant and where it is stored: `legacy`, under the key of before grants were per owner. */
export type GrantHead = { record: GrantRecord; legacy: boolean };

/** `owner`'s live grant of `clientId`; another owner's grant of the same client id is never read. */
export async function getGrantHead(
  ctx: StoreContext,
  owner: string,
  clientId: string,
): Promise<GrantHead | undefined> {
  const record = await getItem(ctx, jobKeys.grantHead(owner, clientId), GrantRecordSchema);
  if (record) return { record, legacy: false };
  if (!(await legacyHeadIsOwners(ctx, owner, clientId))) return undefined;
  const legacy = await getItem(ctx, jobKeys.legacyGrantHead(clientId), GrantRecordSchema);
  return legacy?.owner === owner ? { record: legacy, legacy: true } : undefined;
}

/**
 * Whether the legacy head of `clientId` is `owner`'s, reading its owner attribute only: another owner's grant
 * (up to 350,000 bytes) never reaches this process, and costs the requests a missing one does. The read still
 * consumes capacity for the whole item: "DynamoDB determines capacity units consumed based on item size"
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ProjectionExpressions.html).
 */
async function legacyHeadIsOwners(ctx: StoreContext, owner: string, clientId: string): Promise<boolean> {
  const { Item } = await ctx.doc.send(
    new GetCommand({
      TableName: ctx.table,
      Key: jobKeys.legacyGrantHead(clientId),
      ProjectionExpression: '#owner',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ConsistentRead: true,
    }),
  );
  return Item?.owner === owner;
}
