/**
 * One partition's items between two sort keys, read only as far as a page needs: a strongly consistent Query
 * at a time (each at most 1 MB: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.Pagination.html)
 * until the items read reach `bytes` as stored (item-size.ts), or `limit` items, or the range ends. For the
 * answers paged under Lambda's 6 MB response limit, so a page reads about what it returns.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { itemBytes } from '../core/item-size.ts';
import type { StoreContext } from './client.ts';

export type KeyRange = {
  pk: string;
  /** The first sort key of the range (inclusive). */
  from: string;
  /** The last sort key of the range (inclusive). */
  to: string;
  /** Start after this sort key (it must lie in the range), as DynamoDB's ExclusiveStartKey does. */
  after?: string;
  /** Stop once the items read are at least this large as stored. */
  bytes: number;
  /** Stop once this many items are read. */
  limit?: number;
  /** Newest first (a descending Query). */
  backwards?: true;
};

/** The items read in key order (keys included) and whether the range may hold more after them. */
export type RangeRead = { items: Record<string, unknown>[]; more: boolean };

export async function readKeyRange(ctx: StoreContext, range: KeyRange): Promise<RangeRead> {
  const items: Record<string, unknown>[] = [];
  let bytes = 0;
  let startKey: Record<string, unknown> | undefined =
    range.after === undefined ? undefined : { pk: range.pk, sk: range.after };
  const limit = range.limit ?? Number.POSITIVE_INFINITY;
  do {
    const response = await ctx.doc.send(
      new QueryCommand({
        TableName: ctx.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': range.pk, ':from': range.from, ':to': range.to },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
        ...(Number.isFinite(limit) ? { Limit: limit - items.length } : {}),
        ...(range.backwards ? { ScanIndexForward: false } : {}),
      }),
    );
    for (const item of response.Items ?? []) {
      items.push(item);
      bytes += itemBytes(item);
    }
    startKey = response.LastEvaluatedKey;
  } while (startKey && bytes < range.bytes && items.length < limit);
  return { items, more: startKey !== undefined };
}
