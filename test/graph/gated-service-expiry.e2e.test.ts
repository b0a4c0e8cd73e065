/**
 * A gated service step's approval that nobody decides expires and fails the step closed, with a real Step
 * Functions timer and without waiting the 60 s window: the stack runs on a FixedClock. The step waits with
 * its link sent; the stack stops; the clock moves to 2 s before the window closes; the restarted stack resumes
 * the run in a fresh execution, whose Advance re-drives the waiting step: its wait asks again (a new token,
 * fresh links) for what is left (2 s). The test lets the window pass (the clock moves 3 s on); the wait fails
 * with States.Timeout → ExpireStepApproval records the approval expired → the step runs again and fails
 * `expired`, never called; the run fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakePayments, startFakePayments } from '../../shared/demo/fake-payments.ts';
import {
  applyWorkflowText,
  createOwnTable,
  type E2eStack,
  getAudit,
  removeDir,
  runEnded,
  startE2eStack,
  tempDataDir,
} from '../e2e/support.ts';
import { FixedClock } from '../support/store.ts';
import { gatedGraph, startGated, stepApproval } from './gated-support.ts';
import { stepsOf } from './support.ts';

const clock = new FixedClock(new Date().toISOString());

describe('a gated service step whose approval expires', () => {
  let payments: FakePayments;
  let dataDir: string;
  let table: { endpoint: string; tableName: string };
  let e2e: E2eStack | undefined;
  const options = () => ({
    dataDir,
    clock,
    allowLoopbackPorts: [payments.port],
    internalHosts: ['127.0.0.1'],
    humanTasks: 'in-memory' as const,
  });

  beforeAll(async () => {
    payments = await startFakePayments();
    dataDir = await tempDataDir();
    table = await createOwnTable();
  });
  afterAll(async () => {
    await e2e?.stack.stop();
    await payments?.close();
    await removeDir(dataDir);
  });

  it('fails the step `expired` and never calls', async () => {
    e2e = await startE2eStack(table, options());
    const workflowId = await applyWorkflowText(
      e2e,
      'e2e-gated-expiry',
      gatedGraph('e2e-gated-expiry', payments.url),
    );
    const runId = await startGated(e2e, workflowId, 40);
    const first = await stepApproval(e2e, runId);
    await e2e.stack.stop();
    e2e = undefined;

    clock.advance(58_000);
    e2e = await startE2eStack(table, options());
    expect(e2e.stack.resumed).toContain(runId);
    const second = await stepApproval(e2e, runId, first.approval.taskToken);
    expect(second.approval.approvalId).toBe(first.approval.approvalId);
    clock.advance(3_000);

    const run = await runEnded(e2e, runId, 30_000);
    expect(run.status).toBe('failed');
    expect(payments.refunds).toEqual([]);
    const steps = await stepsOf(e2e, runId);
    expect(steps.refund).toMatchObject({ status: 'failed', error: { name: 'ApprovalExpired' } });
    expect(steps.refund?.error?.message).toMatch(/^expired: no human decided/);
    expect((await e2e.stack.store.getApproval(first.approval.approvalId))?.status).toBe('expired');
    const audit = await getAudit(e2e, runId);
    const types = audit.entries.map((entry) => entry.type);
    expect(types).toContain('approval_expired');
    expect(types).not.toContain('dispatch');
    expect(audit.entries.find((entry) => entry.type === 'denial')?.data).toMatchObject({ cause: 'expired' });
  });
});
