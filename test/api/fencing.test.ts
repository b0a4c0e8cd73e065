import { beforeAll, describe, expect, it } from 'vitest';
import { apiHarness, definition, itemsOf, ownTableName } from './helpers.ts';

const h = apiHarness({ tableName: await ownTableName() });
let foreign: { workflowId: string; name: string; runId: string };
const missing = { workflowId: 'wf_missing0000000000', runId: 'run_missing0000000000' };

beforeAll(async () => {
  const created = await h.bob.post('/v1/workflows', definition());
  const { workflowId, name } = created.body.workflow;
  const run = await h.bob.post(`/v1/workflows/${workflowId}/runs`, {});
  foreign = { workflowId, name, runId: run.body.run.runId };
});

type Ids = { workflowId: string; runId: string; name: string };
const routes: [string, (ids: Ids) => [string, string, unknown?]][] = [
  ['GET workflow', (ids) => ['GET', `/v1/workflows/${ids.workflowId}`]],
  ['GET version', (ids) => ['GET', `/v1/workflows/${ids.workflowId}/versions/1`]],
  [
    'POST version',
    (ids) => ['POST', `/v1/workflows/${ids.workflowId}/versions`, definition({ name: ids.name })],
  ],
  ['POST enable', (ids) => ['POST', `/v1/workflows/${ids.workflowId}/enable`]],
  ['POST disable', (ids) => ['POST', `/v1/workflows/${ids.workflowId}/disable`]],
  ['DELETE workflow', (ids) => ['DELETE', `/v1/workflows/${ids.workflowId}`]],
  ['POST runs', (ids) => ['POST', `/v1/workflows/${ids.workflowId}/runs`, { input: 1 }]],
  ['GET run', (ids) => ['GET', `/v1/runs/${ids.runId}`]],
  ['GET transcript', (ids) => ['GET', `/v1/runs/${ids.runId}/transcript`]],
  ['GET audit', (ids) => ['GET', `/v1/runs/${ids.runId}/audit`]],
  ['GET receipts', (ids) => ['GET', `/v1/runs/${ids.runId}/receipts`]],
  ['POST cancel', (ids) => ['POST', `/v1/runs/${ids.runId}/cancel`]],
];

async function send(method: string, path: string, body: unknown) {
  if (method === 'GET') return h.alice.get(path);
  if (method === 'DELETE') return h.alice.delete(path);
  return h.alice.post(path, body);
}

describe('Owner fencing', () => {
  it.each(routes)(
    '%s: another owner’s id gets the same 404 as a missing id, and nothing changes',
    async (_label, route) => {
      const before = await itemsOf(h.store, h.owners.bob);
      const starts = h.executions.starts.length;
      const [method, path, body] = route({ ...foreign });
      const [, missingPath, missingBody] = route({ ...missing, name: foreign.name });
      const foreignReply = await send(method, path, body);
      const missingReply = await send(method, missingPath, missingBody);
      expect(foreignReply.status).toBe(404);
      expect(foreignReply.body).toEqual(missingReply.body);
      expect(foreignReply.body.error.code).toBe('not_found');
      expect(await itemsOf(h.store, h.owners.bob)).toBe(before);
      expect(h.executions.starts.length).toBe(starts);
      expect(h.executions.stops).toEqual([]);
    },
  );

  it('leaves the other owner’s workflow and run as they were', async () => {
    const workflow = await h.bob.get(`/v1/workflows/${foreign.workflowId}`);
    expect(workflow.body.workflow).toMatchObject({ enabled: true, deleted: false, latestVersion: 1 });
    expect((await h.bob.get(`/v1/runs/${foreign.runId}`)).body.run.status).toBe('pending');
  });

  it('keeps listings to the caller: runs filtered by a foreign workflow id are empty', async () => {
    const reply = await h.alice.get(`/v1/runs?workflowId=${foreign.workflowId}`);
    expect(reply.status).toBe(200);
    expect(reply.body.items).toEqual([]);
    const workflows = await h.alice.get('/v1/workflows?limit=100');
    expect(workflows.body.items.map((w: { workflowId: string }) => w.workflowId)).not.toContain(
      foreign.workflowId,
    );
  });
});
