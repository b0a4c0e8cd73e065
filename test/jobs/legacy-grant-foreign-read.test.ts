/**
 * The legacy grant head (stored under the client id alone, before grants were per owner) is read for its owner
 * first: another owner's lookup of that client id brings back the owner attribute only, never the grant (up to
 * 350,000 bytes), in as many requests as a client id with no grant at all. The owner's own lookup still reads
 * the whole record.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { getGrantHead } from '../../shared/jobs/grant-head.ts';
import { GrantSpecSchema } from '../../shared/jobs/index.ts';
import { grantIndexKeys, jobKeys } from '../../shared/jobs/records.ts';
import { randomIds, testStore, uniqueOwner } from '../support/store.ts';

const store = testStore();

/** Puts `owner`'s legacy grant head of `clientId`, with a system prompt of ~100 KB. */
async function putLegacyGrant(owner: string, clientId: string) {
  const grant = GrantSpecSchema.parse({
    name: 'job-helper',
    system: 'x'.repeat(99_000),
    actions: ['current_time'],
    models: ['claude-sonnet-5-5'],
    maxTurns: 5,
    maxUsdPerJob: 1,
    concurrency: 2,
    scopes: ['jobs:read'],
    connectors: {},
  });
  const record = {
    owner,
    clientId,
    grantId: randomIds.next('grant'),
    version: 1,
    revoked: false,
    grant,
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
    updatedBy: `${owner}@laptop`,
  };
  await store.ctx.doc.send(
    new PutCommand({
      TableName: store.ctx.table,
      Item: {
        ...jobKeys.legacyGrantHead(clientId),
        ...record,
        ...grantIndexKeys(owner, clientId, record.grantId),
      },
    }),
  );
  return record;
}

/** The result, the requests and the bytes of the items DynamoDB returned to one lookup. */
async function measured<T>(call: () => Promise<T>) {
  const send = vi.spyOn(store.ctx.doc, 'send');
  try {
    const result = await call();
    const outputs = await Promise.all(send.mock.results.map((result) => result.value));
    const bytes = outputs.reduce(
      (sum: number, output: { Item?: unknown }) =>
        sum + (output.Item ? JSON.stringify(output.Item).length : 0),
      0,
    );
    return { result, requests: send.mock.calls.length, bytes };
  } finally {
    send.mockRestore();
  }
}

describe('Function: getGrantHead (legacy key)', () => {
  it("reads only the owner of another owner's legacy grant, in the requests a missing client id takes", async () => {
    // Prepare
    const alice = uniqueOwner();
    const bob = uniqueOwner();
    const bot = `bot-${randomUUID().slice(0, 8)}`;
    const record = await putLegacyGrant(alice, bot);

    // Act
    const foreign = await measured(() => getGrantHead(store.ctx, bob, bot));
    const missing = await measured(() => getGrantHead(store.ctx, bob, `${bot}-none`));
    const own = await measured(() => getGrantHead(store.ctx, alice, bot));

    // Assess
    expect(foreign.result).toBeUndefined();
    expect(foreign.requests).toBe(missing.requests);
    expect(foreign.bytes).toBeLessThan(200);
    expect(own.result).toEqual({ record, legacy: true });
    expect(own.bytes).toBeGreaterThan(99_000);
  });
});
