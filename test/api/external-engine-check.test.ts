import { describe, expect, it } from 'vitest';
import { BUILTIN_ENGINE_FACTORIES } from '../../shared/external/builtins.ts';
import { createEngineRegistry } from '../../shared/external/index.ts';
import { validateWorkflowDefinition } from '../../shared/workflow-file/index.ts';
import { refundGraph } from '../graph/fixtures.ts';
import { apiHarness, itemsOf, ownTableName } from './helpers.ts';

const external = {
  kind: 'external',
  name: 'nightly-build',
  engine: 'http-runtime',
  mode: 'shadow',
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
};

const tableName = await ownTableName();

describe('Saving an external workflow checks its engine against the deployment', () => {
  const h = apiHarness({ tableName });
  const disabled = apiHarness({
    externalEngines: createEngineRegistry(BUILTIN_ENGINE_FACTORIES, {
      'http-runtime': { enabled: false, settings: {} },
    }),
  });
  const none = apiHarness({ externalEngines: null });

  it('accepts an enabled engine', async () => {
    expect((await h.alice.post('/v1/workflows', external)).status).toBe(201);
  });

  it('refuses an unknown engine with a 400 naming engine, and writes nothing', async () => {
    const before = await itemsOf(h.store, h.owners.alice);
    const reply = await h.alice.post('/v1/workflows', { ...external, engine: 'batch-runner' });
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields).toEqual([
      { path: 'engine', message: expect.stringContaining('unknown external engine "batch-runner"') },
    ]);
    expect(await itemsOf(h.store, h.owners.alice)).toBe(before);
  });

  it('refuses a registered but disabled engine, on create and on a new version', async () => {
    const reply = await disabled.alice.post('/v1/workflows', external);
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields[0]).toMatchObject({ path: 'engine' });
    expect(reply.body.error.fields[0].message).toContain('not enabled');
    const created = await h.alice.post('/v1/workflows', { ...external, name: 'second' });
    const next = await h.alice.post(`/v1/workflows/${created.body.workflow.workflowId}/versions`, {
      ...external,
      name: 'second',
      engine: 'nope',
    });
    expect(next.status).toBe(400);
    expect(next.body.error.fields[0].path).toBe('engine');
  });

  it('refuses every engine when the deployment configures none', async () => {
    const reply = await none.alice.post('/v1/workflows', external);
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields[0]).toMatchObject({ path: 'engine' });
  });
});

describe('Saving an external workflow with an HTTP destination', () => {
  const h = apiHarness();
  it('is refused naming destination.type (Deliver has no connector for it)', async () => {
    const reply = await h.alice.post('/v1/workflows', {
      ...external,
      name: 'with-http',
      destination: { type: 'http', action: 'notify_hook' },
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields[0].path).toBe('destination.type');
  });

  it('is refused by the workflow file check too (wf validate agrees with the API)', () => {
    const result = validateWorkflowDefinition({
      ...external,
      destination: { type: 'http', action: 'notify_hook' },
    });
    expect(result.ok ? [] : result.errors).toEqual([
      { path: 'destination.type', message: expect.stringContaining('stored, report or alert') },
    ]);
  });
});

describe('Saving a graph workflow with an HTTP destination', () => {
  const h = apiHarness({ tableName });
  // Deliver resolves an HTTP destination's connector and gate in an agent definition: a graph's threw at
  // delivery (WorkflowKindError), so the run never recorded a delivery.
  it('is refused naming destination.type, and nothing is written', async () => {
    const graph = refundGraph();
    graph.connectors.notify_hook = {
      kind: 'http',
      description: 'Tell the team.',
      method: 'POST',
      url: 'http://127.0.0.1:4010/hook',
    };
    graph.destination = { type: 'http', action: 'notify_hook' };
    const before = await itemsOf(h.store, h.owners.alice);

    const reply = await h.alice.post('/v1/workflows', graph);

    expect(reply.status).toBe(400);
    expect(reply.body.error.fields).toEqual([
      { path: 'destination.type', message: expect.stringContaining('stored, report or alert') },
    ]);
    expect(await itemsOf(h.store, h.owners.alice)).toBe(before);
  });
});
