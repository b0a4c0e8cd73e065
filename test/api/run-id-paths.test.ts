/**
 * The run routes take a run id only in the shape the runtime makes one (`GENERATED_RUN_ID`, `run_` and 32
 * lowercase hex digits, shared/schemas/run-id.ts): any other id answers the 404 a missing run answers, body for
 * body, and reaches no store read, no key and no log line. A foreign run answers the same.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { minimalWorkflow, missingRunId, testStore } from '../support/store.ts';
import { twoOwnerGraphApp } from './helpers.ts';

const store = testStore();
const { alice, bob } = twoOwnerGraphApp(store);
const MISSING = missingRunId();
let foreign: string;

beforeAll(async () => {
  const saved = await bob.post('/v1/workflows', {
    ...minimalWorkflow(),
    name: `ids-${randomUUID().slice(0, 8)}`,
  });
  expect(saved.status).toBe(201);
  const started = await bob.post(`/v1/workflows/${saved.body.workflow.workflowId}/runs`, {});
  expect(started.status).toBe(201);
  foreign = started.body.run.runId;
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

const routes = [
  ['GET run', (id: string) => alice.get(`/v1/runs/${id}`)],
  ['GET transcript', (id: string) => alice.get(`/v1/runs/${id}/transcript`)],
  ['GET audit', (id: string) => alice.get(`/v1/runs/${id}/audit`)],
  ['GET receipts', (id: string) => alice.get(`/v1/runs/${id}/receipts`)],
  ['POST cancel', (id: string) => alice.post(`/v1/runs/${id}/cancel`, {})],
  ['GET steps', (id: string) => alice.get(`/v1/runs/${id}/steps`)],
  ['POST pause', (id: string) => alice.post(`/v1/runs/${id}/pause`, {})],
  ['POST resume', (id: string) => alice.post(`/v1/runs/${id}/resume`, {})],
  ['POST step retry', (id: string) => alice.post(`/v1/runs/${id}/steps/draft/retry`, {})],
] as const;

/** Ids the runtime never makes (each one an earlier, looser pattern let through to the store). */
const malformed = [
  ['too short', 'run_abc123'],
  ['upper-case', `run_${'A'.repeat(32)}`],
  ['31 digits long', `run_${'a'.repeat(31)}`],
  ['33 digits long', `run_${'a'.repeat(33)}`],
  ['not hex', `run_${'g'.repeat(32)}`],
] as const;

describe('Run routes: run ids in the runtime’s shape only', () => {
  it.each(routes)(
    '%s: a foreign run answers as a missing one (the premise: missing reads the store)',
    async (_label, call) => {
      const missing = await counted(() => call(MISSING));
      const foreignReply = await counted(() => call(foreign));
      expect(missing.status).toBe(404);
      expect(missing.requests).toBeGreaterThan(0);
      expect(foreignReply.status).toBe(404);
      expect(foreignReply.body).toEqual(missing.body);
    },
  );

  describe.each(routes)('%s', (_label, call) => {
    it.each(malformed)(
      'answers a run id that is %s as a missing run, without a store read',
      async (_kind, id) => {
        const missing = await counted(() => call(MISSING));
        const reply = await counted(() => call(id));
        expect(reply.status).toBe(404);
        expect(reply.body).toEqual(missing.body);
        expect(reply.requests).toBe(0);
      },
    );
  });
});
