/**
 * A human task nobody answers takes its timeout path, with a real Step Functions timer and without waiting a
 * day: the stack runs on a FixedClock. The refund example's manager review (86,400 s) is waiting when the
 * local stack stops; the clock moves to 2 s before the window closes; the restarted stack resumes the run in a
 * fresh graph execution, whose Advance re-drives the waiting step with what is left of its window (2 s). The
 * wait fails with States.Timeout, the Catch records the step's `onTimeout` (continue with approve: false,
 * timedOut), the `declined` end is reached, and nothing is paid.
 */
import { describe, expect, it } from 'vitest';
import { applyWorkflowText, eventually, runEnded } from '../e2e/support.ts';
import { graphStackForSuite } from '../support/graph-stack.ts';
import { FixedClock } from '../support/store.ts';
import { refundGraph, startRefund, stepsOf } from './support.ts';

const clock = new FixedClock(new Date().toISOString());

describe('a human task that times out', () => {
  const graph = graphStackForSuite({ clock });

  it('takes its onTimeout path (declined), pays nothing', async () => {
    const { payments } = graph;
    let e2e = graph.e2e;
    const workflowId = await applyWorkflowText(
      e2e,
      'refund-unanswered',
      refundGraph('refund-unanswered', payments.url),
    );
    const runId = await startRefund(e2e, workflowId, 'I was charged twice for order 7. Customer c_99.');
    const first = e2e;
    await eventually('the manager review task', async () =>
      first.stack.humanTasks.find(runId, 'manager_review'),
    );
    e2e = await graph.restart(() => clock.advance((86_400 - 2) * 1000));
    expect(e2e.stack.resumed).toContain(runId);
    const run = await runEnded(e2e, runId, 30_000);
    const steps = await stepsOf(e2e, runId);
    expect(run.status).toBe('done');
    expect(steps.manager_review).toMatchObject({
      status: 'succeeded',
      timedOut: true,
      output: { approve: false, note: 'no decision within 24 hours' },
    });
    expect(steps.declined?.status).toBe('succeeded');
    expect(steps.issue_refund?.status).toBe('skipped');
    expect(steps.draft_reply?.status).toBe('skipped');
    expect(steps.done?.status).toBe('skipped');
    expect(payments.refunds).toEqual([]);
  });
});
