/** Strongly consistent reads of one run's partition and of single items. */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type * as z from '../zod.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import type { ItemKey } from './keys.ts';
import type { TABLE_KEYS } from './table.ts';

export async function getItem<S extends z.ZodMiniType>(
  ctx: StoreContext,
  key: ItemKey,
  schema: S,
): Promise<z.output<S> | undefined> {
  const response = await ctx.doc.send(
    new GetCommand({ TableName: ctx.table, Key: key, ConsistentRead: true }),
  );
  return response.Item ? decodeItem(schema, response.Item) : undefined;
}

/** All items of a partition whose sort key starts with `prefix`, in order (pages through). */
export async function queryPrefix<S extends z.ZodMiniType>(
  ctx: StoreContext,
  pk: string,
  prefix: string,
  schema: S,
): Promise<z.output<S>[]> {
  return (await queryPrefixItems(ctx, pk, prefix)).map((item) => decodeItem(schema, item));
}

/** The raw items (keys included) of a partition whose sort key starts with `prefix`, in key order. */
export function queryPrefixItems(
  ctx: StoreContext,
  pk: string,
  prefix: string,
): Promise<Record<string, unknown>[]> {
  return queryAllItems(ctx, {
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
  });
}

/**
 * Every item a strongly consistent Query of the table's key returns, in key order: pages through
 * `LastEvaluatedKey` (one Query answers at most 1 MB).
 */
export async function queryAllItems(
  ctx: StoreContext,
  query: { KeyConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> },
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const response = await ctx.doc.send(
      new QueryCommand({ TableName: ctx.table, ...query, ConsistentRead: true, ExclusiveStartKey: startKey }),
    );
    items.push(...(response.Items ?? []));
    startKey = response.LastEvaluatedKey;
  } while (startKey);
  return items;
}

export type Page<T> = { items: T[]; nextToken?: string };

/** Encodes a DynamoDB LastEvaluatedKey as an opaque pagination token. */
export const encodeToken = (key: Record<string, unknown> | undefined): string | undefined =>
  key ? Buffer.from(JSON.stringify(key)).toString('base64url') : undefined;

export function decodeToken(token: string | undefined): Record<string, unknown> | undefined {
  if (!token) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {}
  throw new InvalidPageTokenError();
}

export class InvalidPageTokenError extends Error {
  constructor() {
    super('nextToken is not a token this API issued');
    this.name = 'InvalidPageTokenError';
  }
}

/**
 * How much a status-filtered page may read before it answers. DynamoDB applies a Query's `Limit` before its
 * `FilterExpression` ("A filter expression is applied after a Query finishes, but before the results are
 * returned"; `Limit` is "the maximum number of items to evaluate (not necessarily the number of matching
 * items)": https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.FilterExpression.html,
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html#DDB-Query-request-Limit),
 * so one Query can match nothing while matches lie further on. A filtered page keeps querying until it holds
 * `limit` matches, the index is exhausted, or this budget is spent: at most 1,000 index items evaluated in at
 * most 10 Queries (each reads at most 1 MB). Then it answers what it has, with a `nextToken` if more remain:
 * such a page can still hold fewer than `limit` items, even none.
 */
export const FILTERED_PAGE_BUDGET = { items: 1000, queries: 10 } as const;

type IndexKeys = typeof TABLE_KEYS.byOwner | typeof TABLE_KEYS.byWorkflow;

/** The key of `item` as DynamoDB issues it for a query of `index`: base table key plus index key. */
function indexKeyOf(index: IndexKeys, item: Record<string, unknown>): Record<string, unknown> {
  const names = ['pk', 'sk', index.partitionKey, index.sortKey];
  return Object.fromEntries(names.map((name) => [name, item[name]]));
}

/**
 * One page of a GSI, newest first: items whose index sort key starts with `prefix`, optionally filtered by
 * `status`. Eventually consistent, as every GSI read is. Unfiltered, one Query of `limit` items; filtered,
 * Queries of `limit`, then twice as many, ... within FILTERED_PAGE_BUDGET, stopping at `limit` matches.
 */
export async function queryIndexPage<S extends z.ZodMiniType>(
  ctx: StoreContext,
  index: IndexKeys,
  query: { pk: string; prefix: string; status?: string; limit: number; nextToken?: string | undefined },
  schema: S,
): Promise<Page<z.output<S>>> {
  const matched: Record<string, unknown>[] = [];
  let startKey = decodeToken(query.nextToken);
  let evaluated = 0;
  let queries = 0;
  let size = query.limit;
  for (;;) {
    const response = await ctx.doc.send(
      new QueryCommand({
        TableName: ctx.table,
        IndexName: index.indexName,
        KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
        ...(query.status ? { FilterExpression: '#status = :status' } : {}),
        ExpressionAttributeNames: {
          '#pk': index.partitionKey,
          '#sk': index.sortKey,
          ...(query.status ? { '#status': 'status' } : {}),
        },
        ExpressionAttributeValues: {
          ':pk': query.pk,
          ':prefix': query.prefix,
          ...(query.status ? { ':status': query.status } : {}),
        },
        ScanIndexForward: false,
        Limit: size,
        ExclusiveStartKey: startKey,
      }),
    );
    queries += 1;
    evaluated += response.ScannedCount ?? size;
    matched.push(...(response.Items ?? []));
    startKey = response.LastEvaluatedKey;
    if (matched.length > query.limit) {
      // More matched than the page holds: the next page starts after the last one kept.
      const kept = matched.slice(0, query.limit);
      return {
        items: kept.map((item) => decodeItem(schema, item)),
        nextToken: encodeToken(indexKeyOf(index, kept[kept.length - 1]!))!,
      };
    }
    const left = FILTERED_PAGE_BUDGET.items - evaluated;
    const done =
      !query.status ||
      !startKey ||
      matched.length === query.limit ||
      queries >= FILTERED_PAGE_BUDGET.queries ||
      left <= 0;
    if (done) break;
    size = Math.min(size * 2, left);
  }
  const nextToken = encodeToken(startKey);
  return {
    items: matched.map((item) => decodeItem(schema, item)),
    ...(nextToken ? { nextToken } : {}),
  };
}
