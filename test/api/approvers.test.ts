import { describe, expect, it } from 'vitest';
import { declaredApprovers } from '../../shared/notify/index.ts';
import { refundGraph } from '../graph/fixtures.ts';
import { uniqueOwner } from '../support/store.ts';
import { apiHarness, definition, itemsOf, ownTableName } from './helpers.ts';

// The deployment declared carol for alice only, boss for both, and shared@ for every owner (WF_APPROVER_OWNERS).
const tableName = await ownTableName();
const declared = () => {
  const owners = { alice: uniqueOwner(), bob: uniqueOwner() };
  const reach = declaredApprovers('sns', {
    'carol@example.com': [owners.alice],
    'boss@example.com': [owners.alice, owners.bob],
    'shared@example.com': ['*'],
  });
  return apiHarness({ owners, approverReach: reach, tableName });
};

const gated = (overrides: Record<string, unknown> = {}) =>
  definition({
    allowedActions: ['notes_append'],
    gates: { notes_append: 'needs_approval' },
    approvals: { approvers: ['boss@example.com'], timeoutSeconds: 600 },
    ...overrides,
  });

describe('Workflows API: approvers must be declared for the saving owner', () => {
  it('creates a workflow whose approvers are all declared for its owner (compared case-insensitively)', async () => {
    const h = declared();

    const created = await h.alice.post(
      '/v1/workflows',
      gated({ approvals: { approvers: ['BOSS@example.com', 'carol@example.com'] } }),
    );

    expect(created.status).toBe(201);
  });

  it("refuses bob's gate naming alice's approver with 400 on gates.<action>.approvers[i], as it refuses an undeclared one", async () => {
    // Prepare
    const h = declared();
    const naming = (approver: string) =>
      gated({
        name: 'deploy-prod',
        gates: { notes_append: { mode: 'needs_approval', approvers: ['boss@example.com', approver] } },
      });

    // Act
    const carol = await h.bob.post('/v1/workflows', naming('carol@example.com'));
    const eve = await h.bob.post('/v1/workflows', naming('eve@example.com'));

    // Assess
    expect(carol.status).toBe(400);
    expect(carol.body.error.fields).toEqual([
      { path: 'gates.notes_append.approvers[1]', message: expect.stringContaining("'carol@example.com'") },
    ]);
    // The same words for an approver of another owner as for nobody's: a refusal says nothing of alice's.
    expect(carol.body.error.fields[0].message.replace('carol', 'eve')).toBe(eve.body.error.fields[0].message);
    expect(await itemsOf(h.store, h.owners.bob)).toBe(0);
  });

  it("refuses bob's graph naming alice's approver as a human_task assignee (nodes[i].assignees[j])", async () => {
    const h = declared();
    const graph = refundGraph();
    graph.approvals = { approvers: ['shared@example.com'], timeoutSeconds: 600 };
    graph.nodes[2].assignees = ['shared@example.com', 'carol@example.com'];

    const reply = await h.bob.post('/v1/workflows', graph);

    expect(reply.status).toBe(400);
    expect(reply.body.error.fields).toEqual([
      { path: 'nodes[2].assignees[1]', message: expect.stringContaining("'carol@example.com'") },
    ]);
  });

  it("refuses bob's graph naming alice's approver in an agent_task's gate (nodes[i].gates.<action>.approvers[j])", async () => {
    const h = declared();
    const graph = refundGraph();
    graph.approvals = { approvers: ['shared@example.com'], timeoutSeconds: 600 };
    graph.nodes[2].assignees = ['shared@example.com'];
    graph.nodes[1].allowedActions = ['notes_append'];
    graph.nodes[1].gates = {
      notes_append: { mode: 'needs_approval', approvers: ['boss@example.com', 'carol@example.com'] },
    };

    const reply = await h.bob.post('/v1/workflows', graph);

    expect(reply.status).toBe(400);
    expect(reply.body.error.fields).toEqual([
      {
        path: 'nodes[1].gates.notes_append.approvers[1]',
        message: expect.stringContaining("'carol@example.com'"),
      },
    ]);
    expect(await itemsOf(h.store, h.owners.bob)).toBe(0);
  });

  it('refuses on create with 400 naming approvals.approvers[i] an approver declared for nobody, and writes nothing', async () => {
    const h = declared();

    const reply = await h.alice.post(
      '/v1/workflows',
      gated({ approvals: { approvers: ['boss@example.com', 'eve@example.com'], timeoutSeconds: 600 } }),
    );

    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('validation_failed');
    expect(reply.body.error.fields).toEqual([
      { path: 'approvals.approvers[1]', message: expect.stringContaining("'eve@example.com'") },
    ]);
    expect(reply.body.error.fields[0].message).toContain('sns');
    expect(await itemsOf(h.store, h.owners.alice)).toBe(0);
  });

  it('refuses a new version naming an undeclared gate approver; the head stays', async () => {
    const h = declared();
    const first = gated();
    const created = await h.alice.post('/v1/workflows', first);
    const id = created.body.workflow.workflowId as string;

    const reply = await h.alice.post(`/v1/workflows/${id}/versions`, {
      ...first,
      gates: { notes_append: { mode: 'needs_approval', approvers: ['ops@example.com'] } },
    });

    expect(reply.status).toBe(400);
    expect(reply.body.error.fields).toEqual([
      { path: 'gates.notes_append.approvers[0]', message: expect.stringContaining("'ops@example.com'") },
    ]);
    expect((await h.alice.get(`/v1/workflows/${id}`)).body.workflow.latestVersion).toBe(1);
  });

  it("accepts an approver the operator declared for every owner ('*') from either owner", async () => {
    const h = declared();
    const naming = gated({ approvals: { approvers: ['shared@example.com'], timeoutSeconds: 600 } });

    expect((await h.alice.post('/v1/workflows', naming)).status).toBe(201);
    expect((await h.bob.post('/v1/workflows', naming)).status).toBe(201);
  });

  it('accepts any approver where every approver is deliverable (the local inbox: no reach configured)', async () => {
    const h = apiHarness();

    const reply = await h.alice.post(
      '/v1/workflows',
      gated({ approvals: { approvers: ['anyone@example.com'], timeoutSeconds: 600 } }),
    );

    expect(reply.status).toBe(201);
  });
});
