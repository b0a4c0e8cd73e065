/**
 * For the tests of answers Lambda must keep under its 6 MB response limit: large items written in batches, and
 * a GET sent through the real `hono/aws-lambda` adapter as API Gateway invokes it, with the size of the result
 * Lambda would return.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import { expect } from 'vitest';
import type { DynamoStore } from '../../shared/store/index.ts';
import { httpEvent } from '../iam/lambdas.ts';

/**
 * Lambda's synchronous response limit, counted as the function's JSON result
 * (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html).
 */
export const LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024;

/** JSON-looking text: every quote costs 4 bytes once the page is the `body` string of the Lambda result. */
export const jsonText = (bytes: number): string =>
  '{"key":"value","n":1}\n'.repeat(Math.ceil(bytes / 22)).slice(0, bytes);

/** Writes `items` 25 a batch (BatchWriteItem's limit), sending unprocessed items again until none are left. */
export async function putItems(store: DynamoStore, items: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    const batch = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    let unprocessed: Record<string, unknown> | undefined = { [store.ctx.table]: batch };
    while (unprocessed && Object.keys(unprocessed).length > 0) {
      const answer: { UnprocessedItems?: Record<string, unknown> | undefined } = await store.ctx.doc.send(
        // biome-ignore lint/suspicious/noExplicitAny: the batch is rebuilt from UnprocessedItems as is.
        new BatchWriteCommand({ RequestItems: unprocessed as any }),
      );
      unprocessed = answer.UnprocessedItems;
    }
  }
}

/** GET `path` of `app` behind the Lambda adapter with a bearer key: the result, and its bytes as returned. */
export async function lambdaGet(
  // biome-ignore lint/suspicious/noExplicitAny: any Hono app the harness builds.
  app: Hono<any>,
  bearer: string,
  path: string,
): Promise<{ result: { statusCode: number; body: string }; bytes: number }> {
  const event = httpEvent('GET', `https://api.example.com${path}`, {
    headers: { authorization: `Bearer ${bearer}` },
  });
  // biome-ignore lint/suspicious/noExplicitAny: an API Gateway v2 event built by the IAM harness.
  const result = (await handle(app)(event as any, {} as any)) as { statusCode: number; body: string };
  return { result, bytes: Buffer.byteLength(JSON.stringify(result)) };
}

/** Each `[path, field]` of a paged listing is answered 400, the error naming `field` (a token or a limit refused). */
export async function expectPageQueriesRefused(
  get: (path: string) => Promise<{ status: number; body: { error: { fields: { path: string }[] } } }>,
  cases: readonly (readonly [path: string, field: string])[],
): Promise<void> {
  for (const [path, field] of cases) {
    const reply = await get(path);
    expect({ path, status: reply.status }).toEqual({ path, status: 400 });
    expect(reply.body.error.fields[0]?.path).toBe(field);
  }
}
