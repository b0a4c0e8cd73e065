/**
 * A foreign run id tells the caller's telemetry nothing: the routes that check the owner read through the
 * observed store's `getOwnRun`, so another owner's run is never reported to `runRead` (which puts `owner` and
 * `runId` on the invocation's log keys and X-Ray annotations), exactly as a missing id is not.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { observeStore } from '../../shared/runtime/observed-store.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { refundGraph } from '../graph/fixtures.ts';
import { testStore } from '../support/store.ts';
import { definition, twoOwnerGraphApp } from './helpers.ts';

const runRead = vi.fn<(run: Run) => void>();
const store = observeStore(testStore(), { runRead });
const { owners, alice, bob } = twoOwnerGraphApp(store);
const runs = { agent: '', graph: '' };

async function startRun(body: Record<string, unknown>): Promise<string> {
  const saved = await alice.post('/v1/workflows', body);
  expect(saved.status).toBe(201);
  const started = await alice.post(`/v1/workflows/${saved.body.workflow.workflowId}/runs`, {
    input: { message: 'the vase broke' },
  });
  expect(started.status).toBe(201);
  return started.body.run.runId;
}

beforeAll(async () => {
  runs.agent = await startRun(definition());
  runs.graph = await startRun({ ...refundGraph(), name: `refund-${randomUUID().slice(0, 8)}` });
});
beforeEach(() => runRead.mockClear());

describe('Run routes: what a foreign run id reports to telemetry', () => {
  it("reports the owner's own run read (the premise: the spy sees route reads)", async () => {
    expect((await alice.get(`/v1/runs/${runs.agent}`)).status).toBe(200);
    expect(runRead.mock.calls.map(([run]) => [run.runId, run.owner])).toEqual([[runs.agent, owners.alice]]);
  });

  it.each([
    ['GET run', 'agent', (id: string) => bob.get(`/v1/runs/${id}`)],
    ['GET transcript', 'agent', (id: string) => bob.get(`/v1/runs/${id}/transcript`)],
    ['GET audit', 'agent', (id: string) => bob.get(`/v1/runs/${id}/audit`)],
    ['GET receipts', 'agent', (id: string) => bob.get(`/v1/runs/${id}/receipts`)],
    ['POST cancel', 'agent', (id: string) => bob.post(`/v1/runs/${id}/cancel`, {})],
    ['GET steps', 'graph', (id: string) => bob.get(`/v1/runs/${id}/steps`)],
    ['POST pause', 'graph', (id: string) => bob.post(`/v1/runs/${id}/pause`, {})],
    ['POST cancel (graph)', 'graph', (id: string) => bob.post(`/v1/runs/${id}/cancel`, {})],
  ] as const)("%s of another owner's run: 404 and no run reported", async (_label, kind, call) => {
    const reply = await call(runs[kind]);
    expect(reply.status).toBe(404);
    expect(runRead).not.toHaveBeenCalled();
  });
});
