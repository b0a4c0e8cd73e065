import { describe, expect, it } from 'vitest';
import { listedApprovers } from '../../shared/notify/index.ts';
import { apiHarness, definition, itemsOf, ownTableName } from './helpers.ts';

// The deployment subscribed only boss@example.com to the approval topic (WF_APPROVERS on AWS).
const tableName = await ownTableName();
const subscribed = () =>
  apiHarness({ approverReach: listedApprovers('sns', ['Boss@Example.com']), tableName });

const gated = (overrides: Record<string, unknown> = {}) =>
  definition({
    allowedActions: ['notes_append'],
    gates: { notes_append: 'needs_approval' },
    approvals: { approvers: ['boss@example.com'], timeoutSeconds: 600 },
    ...overrides,
  });

describe('Workflows API: approvers must be deliverable', () => {
  it('creates a workflow whose approvers are all subscribed (compared case-insensitively)', async () => {
    const h = subscribed();

    const created = await h.alice.post(
      '/v1/workflows',
      gated({ approvals: { approvers: ['BOSS@example.com'] } }),
    );

    expect(created.status).toBe(201);
  });

  it('refuses on create with 400 naming approvals.approvers[i], and writes nothing', async () => {
    const h = subscribed();

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

  it('refuses a new version naming an unsubscribed gate approver (gates.<action>.approvers[i]); the head stays', async () => {
    const h = subscribed();
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

  it('accepts any approver where every approver is deliverable (the local inbox: no reach configured)', async () => {
    const h = apiHarness();

    const reply = await h.alice.post(
      '/v1/workflows',
      gated({ approvals: { approvers: ['anyone@example.com'], timeoutSeconds: 600 } }),
    );

    expect(reply.status).toBe(201);
  });
});
