/**
 * A gated service step's approval that nobody decides expires and fails the step closed, with a real Step
 * Functions timer and without waiting the 60 s window: the stack runs on a FixedClock. The step waits with
 * its link sent; the stack stops; the clock moves to 2 s before the window closes; the restarted stack resumes
 * the run in a fresh execution, whose Advance re-drives the waiting step: its wait asks again (a new token,
 * fresh links) for what is left (2 s). The test lets the window pass (the clock moves 3 s on); the wait fails
 * with States.Timeout → ExpireStepApproval records the approval expired → the step runs again and fails
 * `expired`, never called; the run fails.
 */
import { describe, expect, it } from 'vitest';
import { applyWorkflowText, getAudit, runEnded } from '../e2e/support.ts';
import { graphStackForSuite } from '../support/graph-stack.ts';
import { FixedClock } from '../support/store.ts';
import { gatedGraph, startGated, stepApproval } from './gated-support.ts';
import { stepsOf } from './support.ts';

const clock = new FixedClock(new Date().toISOString());

describe('a gated service step whose approval expires', () => {
  const graph = graphStackForSuite({ clock });

  it('fails the step `expired` and never calls', async () => {
    const { payments } = graph;
    let e2e = graph.e2e;
    const workflowId = await applyWorkflowText(
      e2e,
      'e2e-gated-expiry',
      gatedGraph('e2e-gated-expiry', payments.url),
    );
    const runId = await startGated(e2e, workflowId, 40);
    const first = await stepApproval(e2e, runId);
    e2e = await graph.restart(() => clock.advance(58_000));
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
