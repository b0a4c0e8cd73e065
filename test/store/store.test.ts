import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { prepareRun } from '../../shared/core/new-run.ts';
import type { Approval } from '../../shared/schemas/approval.ts';
import type { LedgerRow } from '../../shared/schemas/ledger.ts';
import {
  AlreadyExistsError,
  ApprovalAlreadyDecidedError,
  DayBudgetExceededError,
  IdempotencyConflictError,
  InvalidTransitionError,
  ItemCorruptError,
  keys,
  LedgerConflictError,
  RunConflictError,
} from '../../shared/store/index.ts';
import {
  FixedClock,
  minimalWorkflow,
  randomIds,
  seedRun,
  seedWorkflow,
  testStore,
} from '../support/store.ts';

const store = testStore();
const clock = new FixedClock();
const at = () => new Date(clock.nowMs()).toISOString();

const ledgerRow = (runId: string, toolUseId: string): LedgerRow => ({
  schemaVersion: 1,
  runId,
  toolUseId,
  turn: 0,
  tool: 'notes_append',
  argsHash: 'a'.repeat(64),
  idempotent: false,
  idempotencyKey: `wf-${toolUseId}`,
  status: 'pending',
  attempts: 1,
  createdAt: at(),
});

describe('DynamoStore against DynamoDB Local', () => {
  describe('workflows', () => {
    it('creates a workflow with version 1 and refuses a second one with the same name', async () => {
      const { head, version } = await seedWorkflow(store, minimalWorkflow());
      expect(await store.getWorkflowHead(head.owner, head.workflowId)).toEqual(head);
      expect((await store.getWorkflowVersion(head.owner, head.workflowId, 1))?.definition.name).toBe(
        'test-flow',
      );
      await expect(
        store.createWorkflow(
          { ...head, workflowId: 'wf_other123' },
          { ...version, workflowId: 'wf_other123' },
        ),
      ).rejects.toBeInstanceOf(AlreadyExistsError);
    });

    it('keeps versions immutable and numbered, fenced on the latest version', async () => {
      const { head, version } = await seedWorkflow(store, minimalWorkflow());
      const v2Head = { ...head, latestVersion: 2, updatedAt: at() };
      await store.addWorkflowVersion(head, v2Head, { ...version, version: 2 });
      // A writer that read the old head loses.
      await expect(
        store.addWorkflowVersion(head, { ...head, latestVersion: 2 }, { ...version, version: 2 }),
      ).rejects.toThrow(/changed concurrently/);
      const versions = await store.listWorkflowVersions(head.owner, head.workflowId);
      expect(versions.map((v) => v.version)).toEqual([1, 2]);
    });
  });

  describe('runs', () => {
    it('creates a run with its first message and a verifiable audit chain', async () => {
      const { version } = await seedWorkflow(store, minimalWorkflow());
      const run = await seedRun(store, version, { input: { topic: 'x' } });
      expect(run.status).toBe('pending');
      expect((await store.listMessages(run.runId)).map((m) => m.role)).toEqual(['user']);
      const audit = await store.listAudit(run.runId);
      // Turn 0's reservation is made with the run (core/first-reservation.ts).
      expect(audit.map((entry) => entry.type)).toEqual(['run_created', 'budget_reserved']);
      expect(verifyAuditChain(audit, { owner: run.owner, runId: run.runId }).ok).toBe(true);
    });

    it('returns the same run for a repeated idempotency key and refuses a different request under it', async () => {
      const { version } = await seedWorkflow(store, minimalWorkflow());
      const idem = { scope: 'api', key: 'k-1', requestHash: 'h1', expiresAtEpoch: 2_000_000_000 };
      const make = () =>
        prepareRun({
          version,
          trigger: { type: 'on_demand', caller: 't' },
          clock,
          ids: randomIds,
          actor: 'owner:t',
        });
      const first = await store.createRun(make(), idem);
      const second = await store.createRun(make(), idem);
      expect(second).toEqual({ run: first.run, created: false });
      await expect(store.createRun(make(), { ...idem, requestHash: 'h2' })).rejects.toBeInstanceOf(
        IdempotencyConflictError,
      );
    });

    it('lets exactly one of two concurrent transitions from the same state win; the loser gets a RunConflictError', async () => {
      const { version } = await seedWorkflow(store, minimalWorkflow());
      const run = await seedRun(store, version);
      const results = await Promise.allSettled([
        store.commit({
          run,
          next: { ...run, status: 'running' },
          audit: [{ type: 'status_changed', actor: 'system', data: { to: 'running' } }],
        }),
        store.commit({
          run,
          next: { ...run, status: 'cancelled' },
          audit: [{ type: 'status_changed', actor: 'system', data: { to: 'cancelled' } }],
        }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const loser = results.find((r) => r.status === 'rejected');
      expect(loser?.status === 'rejected' && loser.reason).toBeInstanceOf(RunConflictError);
      const stored = await store.getRun(run.runId);
      expect(stored?.rev).toBe(1);
      const audit = await store.listAudit(run.runId);
      expect(audit).toHaveLength(3); // run_created, budget_reserved, the winner's
      expect(verifyAuditChain(audit, { owner: run.owner, runId: run.runId }).ok).toBe(true);
    });

    it('refuses a transition the status table does not allow', async () => {
      const { version } = await seedWorkflow(store, minimalWorkflow());
      const run = await seedRun(store, version);
      const done = await store.commit({ run, next: { ...run, status: 'running' } });
      const finished = await store.commit({ run: done, next: { ...done, status: 'done' } });
      await expect(
        store.commit({ run: finished, next: { ...finished, status: 'running' } }),
      ).rejects.toBeInstanceOf(InvalidTransitionError);
    });

    it('lists runs by owner and by workflow, newest first, filtered by status and paginated', async () => {
      const { version } = await seedWorkflow(store, minimalWorkflow());
      const runs = [];
      for (let i = 0; i < 3; i++) {
        clock.advance(1000);
        runs.push(await seedRun(store, version, { clock }));
      }
      const first = await store.listRuns({ owner: version.owner, limit: 2 });
      expect(first.items.map((r) => r.runId)).toEqual([runs[2]!.runId, runs[1]!.runId]);
      const second = await store.listRuns({ owner: version.owner, limit: 2, nextToken: first.nextToken! });
      expect(second.items.map((r) => r.runId)).toContain(runs[0]!.runId);
      const byWorkflow = await store.listRuns({
        owner: version.owner,
        workflowId: version.workflowId,
        status: 'pending',
      });
      expect(byWorkflow.items).toHaveLength(3);
      expect((await store.listRuns({ owner: version.owner, status: 'done' })).items).toHaveLength(0);
    });
  });

  describe('ledger', () => {
    it('settles a pending row once and refuses a second settle', async () => {
      const { version } = await seedWorkflow(store, minimalWorkflow());
      let run = await seedRun(store, version);
      const row = ledgerRow(run.runId, 'toolu_1');
      run = await store.commit({ run, next: run, ledgerCreate: [row] });
      const settled: LedgerRow = {
        ...row,
        status: 'completed',
        outcome: { content: 'ok', isError: false },
        settledAt: at(),
      };
      run = await store.commit({ run, next: run, ledgerSettle: [settled] });
      await expect(
        store.commit({
          run,
          next: run,
          ledgerSettle: [{ ...settled, outcome: { content: 'again', isError: false } }],
        }),
      ).rejects.toBeInstanceOf(LedgerConflictError);
      const rows = await store.listLedger(run.runId);
      expect(rows.map((r) => [r.status, r.outcome?.content])).toEqual([['completed', 'ok']]);
    });

    it('refuses a second pending row for the same tool_use id and writes nothing else of that change', async () => {
      const { version } = await seedWorkflow(store, minimalWorkflow());
      let run = await seedRun(store, version);
      run = await store.commit({ run, next: run, ledgerCreate: [ledgerRow(run.runId, 'toolu_1')] });
      const auditBefore = (await store.listAudit(run.runId)).length;
      await expect(
        store.commit({
          run,
          next: run,
          ledgerCreate: [ledgerRow(run.runId, 'toolu_1')],
          audit: [{ type: 'dispatch', actor: 'system', data: {} }],
        }),
      ).rejects.toBeInstanceOf(LedgerConflictError);
      expect((await store.listAudit(run.runId)).length).toBe(auditBefore);
      expect((await store.getRun(run.runId))?.rev).toBe(run.rev);
    });
  });

  describe('approvals', () => {
    it('decides an approval once; a second decision is refused with the reason', async () => {
      const { version } = await seedWorkflow(store, minimalWorkflow());
      let run = await seedRun(store, version);
      const approval: Approval = {
        schemaVersion: 1,
        approvalId: `apr_${run.runId.slice(4, 24)}`,
        owner: run.owner,
        runId: run.runId,
        workflowId: run.workflowId,
        workflowName: run.workflowName,
        workflowVersion: 1,
        turn: 0,
        toolUseId: 'toolu_1',
        tool: 'notes_append',
        args: { name: 'n', text: 't' },
        argsHash: 'b'.repeat(64),
        reason: 'because',
        approvers: ['a@example.com'],
        status: 'pending',
        expiresAt: new Date(clock.nowMs() + 3_600_000).toISOString(),
        createdAt: at(),
      };
      run = await store.commit({ run, next: run, approvalCreate: [approval] });
      const approve = {
        ...approval,
        status: 'approved' as const,
        decidedBy: 'a@example.com',
        decidedAt: at(),
      };
      const deny = { ...approval, status: 'denied' as const, decidedBy: 'a@example.com', decidedAt: at() };
      const results = await Promise.allSettled([
        store.commit({ run, next: run, approvalUpdate: [{ approval: approve, expectedStatus: 'pending' }] }),
        store.commit({ run, next: run, approvalUpdate: [{ approval: deny, expectedStatus: 'pending' }] }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const fresh = (await store.getRun(run.runId))!;
      await expect(
        store.commit({
          run: fresh,
          next: fresh,
          approvalUpdate: [{ approval: deny, expectedStatus: 'pending' }],
        }),
      ).rejects.toSatisfy(
        (error: unknown) =>
          error instanceof ApprovalAlreadyDecidedError && /already decided/.test(error.message),
      );
      expect((await store.getApproval(approval.approvalId))?.status).toMatch(/approved|denied/);
    });
  });

  describe('per-day spend', () => {
    it('refuses a reservation that would pass the day ceiling, atomically', async () => {
      const { version } = await seedWorkflow(store, minimalWorkflow());
      let run = await seedRun(store, version);
      const spend = (deltaUsd: number) => ({
        owner: run.owner,
        workflowId: run.workflowId,
        day: '2026-11-30',
        deltaUsd,
        limitUsd: 1,
      });
      run = await store.commit({ run, next: run, daySpend: spend(0.6) });
      await expect(store.commit({ run, next: run, daySpend: spend(0.5) })).rejects.toBeInstanceOf(
        DayBudgetExceededError,
      );
      run = await store.commit({ run, next: run, daySpend: spend(0.4) });
      expect(await store.getDaySpend(run.owner, run.workflowId, '2026-11-30')).toBeCloseTo(1, 9);
    });
  });

  describe('schema on read', () => {
    it('names the key of an item that does not parse', async () => {
      const { version } = await seedWorkflow(store, minimalWorkflow());
      const run = await seedRun(store, version);
      await store.ctx.doc.send(
        new PutCommand({
          TableName: store.ctx.table,
          Item: { ...keys.run(run.runId), ...run, status: 'exploded' },
        }),
      );
      await expect(store.getRun(run.runId)).rejects.toSatisfy(
        (error: unknown) =>
          error instanceof ItemCorruptError &&
          error.message.includes(`RUN#${run.runId}/RUN`) &&
          /status/.test(error.message),
      );
    });
  });
});
