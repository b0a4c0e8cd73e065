/**
 * The graph-run routes decide a foreign run on the first page of its read: another owner's run with steps
 * big enough to span several Query pages costs exactly the requests a missing id costs (the number of round
 * trips would otherwise tell a foreign run from a missing one), while the owner's own read still pages on.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { keys } from '../../shared/store/keys.ts';
import { refundGraph } from '../graph/fixtures.ts';
import { missingRunId, testStore } from '../support/store.ts';
import { twoOwnerGraphApp } from './helpers.ts';

const store = testStore();
const { alice, bob } = twoOwnerGraphApp(store);
const MISSING = missingRunId();
let foreign: string;

beforeAll(async () => {
  const saved = await bob.post('/v1/workflows', {
    ...refundGraph(),
    name: `refund-${randomUUID().slice(0, 8)}`,
  });
  expect(saved.status).toBe(201);
  const started = await bob.post(`/v1/workflows/${saved.body.workflow.workflowId}/runs`, {
    input: { message: 'the vase broke' },
  });
  expect(started.status).toBe(201);
  foreign = started.body.run.runId;
  // Six steps of ~300 KB each: more than one 1 MB Query page
  // (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.Pagination.html).
  for (let i = 0; i < 6; i++) {
    await store.ctx.doc.send(
      new PutCommand({
        TableName: store.ctx.table,
        Item: {
          ...keys.step(foreign, `big_${i}`),
          schemaVersion: 1,
          runId: foreign,
          stepId: `big_${i}`,
          type: 'service_task',
          status: 'succeeded',
          attempt: 1,
          output: 'x'.repeat(300_000),
          updatedAt: '2026-11-30T07:00:00.000Z',
        },
      }),
    );
  }
});

/** The answer and the number of DynamoDB requests of one call. */
async function counted(call: () => Promise<{ status: number; body: unknown }>) {
  const send = vi.spyOn(store.ctx.doc, 'send');
  try {
    const reply = await call();
    return { status: reply.status, body: reply.body, requests: send.mock.calls.length };
  } finally {
    send.mockRestore();
  }
}

describe('Graph run routes: a foreign run read', () => {
  it("pages through the owner's own large run (the premise: it spans several pages)", async () => {
    const own = await counted(() => bob.get(`/v1/runs/${foreign}/steps`));
    const missing = await counted(() => bob.get(`/v1/runs/${MISSING}/steps`));
    expect(own.status).toBe(200);
    expect(own.requests).toBeGreaterThan(missing.requests);
  });

  it.each([
    ['GET steps', (id: string) => alice.get(`/v1/runs/${id}/steps`)],
    ['POST pause', (id: string) => alice.post(`/v1/runs/${id}/pause`, {})],
    ['POST resume', (id: string) => alice.post(`/v1/runs/${id}/resume`, {})],
    ['POST step retry', (id: string) => alice.post(`/v1/runs/${id}/steps/big_0/retry`, {})],
  ])('%s: a foreign run makes as many requests as a missing id, with the same 404', async (_label, call) => {
    const foreignReply = await counted(() => call(foreign));
    const missingReply = await counted(() => call(MISSING));
    expect(foreignReply.status).toBe(404);
    expect(foreignReply.body).toEqual(missingReply.body);
    expect(foreignReply.requests).toBe(missingReply.requests);
  });
});
