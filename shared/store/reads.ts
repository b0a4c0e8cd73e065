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
 * One page of a GSI, newest first: items whose index sort key starts with `prefix`, optionally filtered by
 * `status`. Eventually consistent, as every GSI read is.
 */
export async function queryIndexPage<S extends z.ZodMiniType>(
  ctx: StoreContext,
  index: typeof TABLE_KEYS.byOwner | typeof TABLE_KEYS.byWorkflow,
  query: { pk: string; prefix: string; status?: string; limit: number; nextToken?: string | undefined },
  schema: S,
): Promise<Page<z.output<S>>> {
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
      Limit: query.limit,
      ExclusiveStartKey: decodeToken(query.nextToken),
    }),
  );
  const nextToken = encodeToken(response.LastEvaluatedKey);
  return {
    items: (response.Items ?? []).map((item) => decodeItem(schema, item)),
    ...(nextToken ? { nextToken } : {}),
  };
}
