import { describe, expect, it } from 'vitest';
import { apiHarness, itemsOf, ownTableName } from './helpers.ts';

const h = apiHarness({ tableName: await ownTableName() });

const externalWorkflow = {
  kind: 'external',
  name: 'nightly-build',
  engine: 'http-runtime',
  mode: 'shadow',
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
};

describe('Workflow kinds', () => {
  it('stores a definition of another kind as it was given, kind included', async () => {
    const created = await h.alice.post('/v1/workflows', externalWorkflow);
    expect(created.status).toBe(201);
    expect(created.body.version.definition).toMatchObject({ kind: 'external', engine: 'http-runtime' });
  });

  it('refuses an unknown kind with a 400 naming the field', async () => {
    const reply = await h.alice.post('/v1/workflows', { ...externalWorkflow, kind: 'batch' });
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body)).toContain('kind');
  });

  it('refuses to start a run of a kind this deployment cannot execute, and writes no run', async () => {
    const created = await h.alice.post('/v1/workflows', { ...externalWorkflow, name: 'cannot-run' });
    const { workflowId } = created.body.workflow;
    const starts = h.executions.starts.length;
    const itemsBefore = await itemsOf(h.store, h.owners.alice);
    const reply = await h.alice.post(`/v1/workflows/${workflowId}/runs`, { input: {} });
    expect(reply.status).toBe(409);
    expect(reply.body.error).toMatchObject({ code: 'workflow_not_runnable' });
    expect(reply.body.error.message).toContain("kind 'external'");
    expect(h.executions.starts.length).toBe(starts);
    expect(await itemsOf(h.store, h.owners.alice)).toBe(itemsBefore);
  });
});
