import { describe, expect, it } from 'vitest';
import type { Approval } from '../../shared/schemas/approval.ts';
import { editStoredAuditEntry } from '../support/audit-items.ts';
import { missingRunId } from '../support/store.ts';
import { apiHarness, definition, itemsOf, ownTableName } from './helpers.ts';

const h = apiHarness({ tableName: await ownTableName() });

async function newWorkflow(client = h.alice, overrides: Record<string, unknown> = {}) {
  const created = await client.post('/v1/workflows', definition(overrides));
  expect(created.status).toBe(201);
  return created.body.workflow as { workflowId: string; name: string };
}

describe('Run routes', () => {
  describe('POST /v1/workflows/:id/runs', () => {
    it('starts a run: 201, pending, bound to the latest version, its execution started', async () => {
      const { workflowId } = await newWorkflow();
      const reply = await h.alice.post(`/v1/workflows/${workflowId}/runs`, { input: { ticket: 42 } });
      expect(reply.status).toBe(201);
      const run = reply.body.run;
      expect(run).toMatchObject({
        owner: h.owners.alice,
        workflowId,
        workflowVersion: 1,
        status: 'pending',
        input: { ticket: 42 },
        trigger: { type: 'on_demand', caller: 'alice@laptop' },
        executionArn: expect.stringContaining(run.runId),
      });
      expect(reply.headers.get('location')).toBe(`/v1/runs/${run.runId}`);
      expect(h.executions.starts.at(-1)).toEqual({
        name: run.runId,
        // The run's first execution names its workflow head: its first turn reads it with the run.
        pointer: {
          runId: run.runId,
          turn: 0,
          segmentStartTurn: 0,
          headHint: { owner: h.owners.alice, workflowId },
        },
      });
    });

    it('starts a run without a body', async () => {
      const { workflowId } = await newWorkflow();
      const reply = await h.alice.post(`/v1/workflows/${workflowId}/runs`);
      expect(reply.status).toBe(201);
      expect(reply.body.run.input).toBeUndefined();
    });

    it.each([
      ['an unknown field', { input: 1, extra: true }, '(root)'],
      ['a number DynamoDB cannot hold', { input: { n: 1e300 } }, 'input.n'],
      ['input nested too deeply', { input: JSON.parse(`${'['.repeat(30)}${']'.repeat(30)}`) }, 'input'],
      ['a body that is not an object', [1, 2], '(root)'],
    ])('answers %s with 400 naming %s, starting nothing', async (_label, body, path) => {
      const { workflowId } = await newWorkflow();
      const starts = h.executions.starts.length;
      const reply = await h.alice.post(`/v1/workflows/${workflowId}/runs`, body);
      expect(reply.status).toBe(400);
      expect(reply.body.error.fields.map((field: { path: string }) => field.path)).toContainEqual(
        expect.stringContaining(path),
      );
      expect(h.executions.starts.length).toBe(starts);
    });

    it('answers a missing workflow with 404', async () => {
      const reply = await h.alice.post('/v1/workflows/wf_missing000000/runs', {});
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('not_found');
    });
  });

  describe('Idempotency-Key', () => {
    it('returns the same run with 200 for a repeated identical start, and starts one execution (by one name)', async () => {
      const { workflowId } = await newWorkflow();
      const headers = { 'idempotency-key': 'order-7781' };
      const first = await h.alice.post(`/v1/workflows/${workflowId}/runs`, { input: { n: 1 } }, { headers });
      const starts = h.executions.starts.length;
      const second = await h.alice.post(`/v1/workflows/${workflowId}/runs`, { input: { n: 1 } }, { headers });
      expect(first.status).toBe(201);
      expect(second.status).toBe(200);
      expect(second.body.run.runId).toBe(first.body.run.runId);
      expect(second.body.run.trigger.idempotencyKey).toBe('order-7781');
      // The run is still pending here (nothing runs its execution), so the repeat starts it again by the same
      // name: StartExecution is idempotent by name, one execution (shared/runs/start-run.ts launchRun).
      expect(h.executions.starts.slice(starts - 1).map((start) => start.name)).toEqual([
        first.body.run.runId,
        first.body.run.runId,
      ]);
    });

    it('answers a different body under the same key with 409 idempotency_conflict', async () => {
      const { workflowId } = await newWorkflow();
      const headers = { 'idempotency-key': 'order-7782' };
      await h.alice.post(`/v1/workflows/${workflowId}/runs`, { input: { n: 1 } }, { headers });
      const before = await itemsOf(h.store, h.owners.alice);
      const reply = await h.alice.post(`/v1/workflows/${workflowId}/runs`, { input: { n: 2 } }, { headers });
      expect(reply.status).toBe(409);
      expect(reply.body.error.code).toBe('idempotency_conflict');
      expect(await itemsOf(h.store, h.owners.alice)).toBe(before);
    });

    it('keeps keys per workflow: the same key on another workflow is another run', async () => {
      const a = await newWorkflow();
      const b = await newWorkflow();
      const headers = { 'idempotency-key': 'shared-key' };
      const first = await h.alice.post(`/v1/workflows/${a.workflowId}/runs`, {}, { headers });
      const second = await h.alice.post(`/v1/workflows/${b.workflowId}/runs`, {}, { headers });
      expect(second.status).toBe(201);
      expect(second.body.run.runId).not.toBe(first.body.run.runId);
    });

    it.each(['', 'has space', 'x'.repeat(256), 'ünïcode'])('answers the key %j with 400', async (key) => {
      const { workflowId } = await newWorkflow();
      const reply = await h.alice.call('POST', `/v1/workflows/${workflowId}/runs`, '{}', {
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
      });
      expect(reply.status).toBe(400);
      expect(reply.body.error.fields[0].path).toBe('Idempotency-Key');
    });
  });

  it('binds a run to its version: a new version does not change runs started before it', async () => {
    const { workflowId, name } = await newWorkflow();
    const old = (await h.alice.post(`/v1/workflows/${workflowId}/runs`, {})).body.run;
    expect((await h.alice.post(`/v1/workflows/${workflowId}/versions`, definition({ name }))).status).toBe(
      201,
    );
    const fresh = (await h.alice.post(`/v1/workflows/${workflowId}/runs`, {})).body.run;
    expect((await h.alice.get(`/v1/runs/${old.runId}`)).body.run.workflowVersion).toBe(1);
    expect(fresh.workflowVersion).toBe(2);
  });

  describe('GET /v1/runs and /v1/runs/:id', () => {
    it('gets a run by id', async () => {
      const { workflowId } = await newWorkflow();
      const run = (await h.alice.post(`/v1/workflows/${workflowId}/runs`, {})).body.run;
      const reply = await h.alice.get(`/v1/runs/${run.runId}`);
      expect(reply.status).toBe(200);
      expect(reply.body.run).toEqual(run);
      expect((await h.alice.get(`/v1/runs/${missingRunId()}`)).status).toBe(404);
    });

    it('lists runs by workflow and status, a page at a time', async () => {
      const { alice } = apiHarness();
      const created = await alice.post('/v1/workflows', definition());
      const workflowId = created.body.workflow.workflowId;
      const ids = [];
      for (let i = 0; i < 3; i++)
        ids.push((await alice.post(`/v1/workflows/${workflowId}/runs`, {})).body.run.runId);
      const first = await alice.get(`/v1/runs?workflowId=${workflowId}&status=pending&limit=2`);
      expect(first.status).toBe(200);
      expect(first.body.items).toHaveLength(2);
      const second = await alice.get(
        `/v1/runs?workflowId=${workflowId}&status=pending&limit=2&nextToken=${encodeURIComponent(first.body.nextToken)}`,
      );
      expect(
        [...first.body.items, ...second.body.items].map((run: { runId: string }) => run.runId).sort(),
      ).toEqual(ids.sort());
      const byOwner = await alice.get('/v1/runs?limit=1');
      expect(byOwner.body.items).toHaveLength(1);
      const next = await alice.get(
        `/v1/runs?limit=5&nextToken=${encodeURIComponent(byOwner.body.nextToken)}`,
      );
      expect(next.status).toBe(200);
      expect(next.body.items).toHaveLength(2);
      expect((await alice.get('/v1/runs?status=done')).body.items).toEqual([]);
    });

    it.each([
      ['status=finished', 'status'],
      ['workflowId=nope', 'workflowId'],
      ['limit=-1', 'limit'],
    ])('answers ?%s with 400 naming %s', async (query, path) => {
      const reply = await h.alice.get(`/v1/runs?${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body.error.fields[0].path).toBe(path);
    });

    it('refuses a page token of the owner listing when listing by workflow', async () => {
      const { workflowId } = await newWorkflow();
      for (let i = 0; i < 2; i++) await h.alice.post(`/v1/workflows/${workflowId}/runs`, {});
      const page = await h.alice.get('/v1/runs?limit=1');
      const reply = await h.alice.get(
        `/v1/runs?workflowId=${workflowId}&nextToken=${encodeURIComponent(page.body.nextToken)}`,
      );
      expect(reply.status).toBe(400);
    });
  });

  describe('transcript and audit', () => {
    it('returns the transcript in order', async () => {
      const { workflowId } = await newWorkflow();
      const run = (await h.alice.post(`/v1/workflows/${workflowId}/runs`, { input: 'hello' })).body.run;
      const reply = await h.alice.get(`/v1/runs/${run.runId}/transcript`);
      expect(reply.status).toBe(200);
      expect(reply.body.runId).toBe(run.runId);
      expect(reply.body.messages).toHaveLength(1);
      expect(reply.body.messages[0]).toMatchObject({ seq: 0, role: 'user' });
      expect(reply.body.messages[0].content[0].text).toContain('"hello"');
    });

    it('returns the audit chain with a passing verification, and a failing one after tampering', async () => {
      const { workflowId } = await newWorkflow();
      const run = (await h.alice.post(`/v1/workflows/${workflowId}/runs`, {})).body.run;
      const reply = await h.alice.get(`/v1/runs/${run.runId}/audit`);
      expect(reply.status).toBe(200);
      // Turn 0's reservation is made with the run (core/first-reservation.ts).
      expect(reply.body.entries.map((entry: { type: string }) => entry.type)).toEqual([
        'run_created',
        'budget_reserved',
      ]);
      expect(reply.body.verification).toEqual({ ok: true, count: 2, head: run.audit.head });

      await editStoredAuditEntry(h.store, run.runId, 0, (entry) => ({
        ...entry,
        data: { ...entry.data, workflowVersion: 9 },
      }));
      const tampered = await h.alice.get(`/v1/runs/${run.runId}/audit`);
      expect(tampered.body.verification).toMatchObject({
        ok: false,
        firstBrokenSeq: 0,
        reason: 'hash_mismatch',
      });
    });
    it('names an entry that no longer matches the schema instead of failing the read', async () => {
      const { workflowId } = await newWorkflow();
      const run = (await h.alice.post(`/v1/workflows/${workflowId}/runs`, {})).body.run;
      await editStoredAuditEntry(h.store, run.runId, 0, (entry) => ({ ...entry, actor: 'someone-else' }));
      const reply = await h.alice.get(`/v1/runs/${run.runId}/audit`);
      expect(reply.status).toBe(200);
      expect(reply.body.verification).toMatchObject({ ok: false, firstBrokenSeq: 0, reason: 'schema' });
    });
  });

  describe('POST /v1/runs/:id/cancel', () => {
    it('cancels a run and stops its execution; a second cancel returns it as it is and stops it again', async () => {
      const { workflowId } = await newWorkflow();
      const run = (await h.alice.post(`/v1/workflows/${workflowId}/runs`, {})).body.run;
      const reply = await h.alice.post(`/v1/runs/${run.runId}/cancel`);
      expect(reply.status).toBe(200);
      expect(reply.body.run).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
      expect(h.executions.stops).toContainEqual({
        executionArn: run.executionArn,
        cause: 'cancelled by owner',
      });
      const stops = h.executions.stops.length;
      const again = await h.alice.post(`/v1/runs/${run.runId}/cancel`);
      expect(again.body.run).toMatchObject({ status: 'cancelled', rev: reply.body.run.rev });
      // Stopped again: a first cancel that failed after its commit is completed by repeating it.
      expect(h.executions.stops.length).toBe(stops + 1);
      const audit = await h.alice.get(`/v1/runs/${run.runId}/audit`);
      expect(audit.body.entries.map((entry: { actor: string }) => entry.actor)).toContain(
        'owner:alice@laptop',
      );
    });

    it('answers a missing run with 404', async () => {
      expect((await h.alice.post(`/v1/runs/${missingRunId()}/cancel`)).status).toBe(404);
    });
  });
});

describe('GET /v1/approvals', () => {
  it('lists the owner’s pending approvals without task tokens', async () => {
    const { workflowId } = await newWorkflow();
    const run = (await h.alice.post(`/v1/workflows/${workflowId}/runs`, {})).body.run;
    const stored = (await h.store.getRun(run.runId))!;
    const approval: Approval = {
      schemaVersion: 1,
      approvalId: `apr_${run.runId.slice(4, 30)}`,
      owner: h.owners.alice,
      runId: run.runId,
      workflowId,
      workflowName: run.workflowName,
      workflowVersion: 1,
      turn: 0,
      toolUseId: 'toolu_01',
      tool: 'notes_put',
      args: { name: 'n', value: 'v' },
      argsHash: 'a'.repeat(64),
      reason: 'needed',
      approvers: ['lead@example.com'],
      status: 'pending',
      expiresAt: '2026-12-01T07:00:00.000Z',
      createdAt: stored.createdAt,
      taskToken: 'secret-task-token',
      fence: '2026-12-01T06:00:00.000Z.000000000000001.0000.0001',
    };
    await h.store.commit({ run: stored, next: stored, approvalCreate: [approval] });

    const reply = await h.alice.get('/v1/approvals?status=pending');
    expect(reply.status).toBe(200);
    const listed = reply.body.items.find(
      (item: { approvalId: string }) => item.approvalId === approval.approvalId,
    );
    const { taskToken: _hidden, fence: _attempt, ...visible } = approval;
    expect(listed).toEqual(visible);
    expect(JSON.stringify(reply.body)).not.toContain('secret-task-token');
    expect((await h.alice.get('/v1/approvals?status=approved')).body.items).toEqual([]);
    expect((await h.bob.get('/v1/approvals')).body.items).toEqual([]);
  });

  it('answers an unknown status with 400', async () => {
    const reply = await h.alice.get('/v1/approvals?status=maybe');
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields[0].path).toBe('status');
  });
});
