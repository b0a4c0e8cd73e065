/**
 * examples/refund-request.graph.yaml end to end on the local stack (graph machine from the synthesized
 * definition, child agent runs on the run machine, the scripted model from examples/fixtures):
 * - small amount: triage → issue_refund → draft_reply → done, no human task;
 * - large amount, approved: triage → manager_review (answered through the human-task port) → refund → reply;
 * Payments counts what was paid on a loopback fake payments server.
 */
import { describe, expect, it } from 'vitest';
import { applyWorkflowText, eventually, getAudit, runEnded } from '../e2e/support.ts';
import { graphStackForSuite } from '../support/graph-stack.ts';
import { refundGraph, startRefund, stepsOf } from './support.ts';

describe('the refund example on the local stack', () => {
  const suite = graphStackForSuite();

  it('a small amount is refunded without a human task, and the reply drafted', async () => {
    const { e2e, payments } = suite;
    const workflowId = await applyWorkflowText(
      e2e,
      'refund-request',
      refundGraph('refund-request', payments.url),
    );
    const runId = await startRefund(e2e, workflowId, 'Order 1: the vase arrived broken. Customer c_17.');
    const run = await runEnded(e2e, runId, 30_000);
    const steps = await stepsOf(e2e, runId);
    expect({ status: run.status, error: run.error }).toEqual({ status: 'done', error: undefined });
    expect(steps.triage).toMatchObject({
      status: 'succeeded',
      output: { amount: 30, reason: 'damaged item', customerId: 'c_17' },
    });
    expect(steps.manager_review?.status).toBe('skipped');
    expect(steps.declined?.status).toBe('skipped');
    expect(steps.issue_refund).toMatchObject({
      status: 'succeeded',
      output: { refundId: expect.any(String) },
    });
    expect(steps.draft_reply).toMatchObject({
      status: 'succeeded',
      output: { text: expect.stringContaining('refund') },
    });
    expect(steps.done?.status).toBe('succeeded');
    expect(payments.refunds.filter((refund) => refund.customerId === 'c_17')).toHaveLength(1);
    expect(e2e.stack.humanTasks.open()).toEqual([]);
    // The child runs are agent runs bound to the graph's version, pointing at their steps.
    const child = await e2e.stack.store.getRun(steps.triage!.childRunId!);
    expect(child).toMatchObject({
      kind: 'agent',
      status: 'done',
      parent: { runId, stepId: 'triage', attempt: 1 },
    });
    expect((await getAudit(e2e, runId)).verification.ok).toBe(true);
  });

  it('a large amount waits for the manager, and is refunded once approved', async () => {
    const { e2e, payments } = suite;
    const workflowId = await applyWorkflowText(
      e2e,
      'refund-large',
      refundGraph('refund-large', payments.url),
    );
    const runId = await startRefund(e2e, workflowId, 'My order never arrived. Customer c_88.');
    const task = await eventually('the manager review task', async () =>
      e2e.stack.humanTasks.find(runId, 'manager_review'),
    );
    expect(task).toMatchObject({
      assignees: ['manager@example.com'],
      context: { 'steps.triage.output.amount': 250, 'steps.triage.output.customerId': 'c_88' },
    });
    expect(payments.refunds.filter((refund) => refund.customerId === 'c_88')).toEqual([]);
    expect((await stepsOf(e2e, runId)).manager_review?.status).toBe('waiting');
    await e2e.stack.humanTasks.submit(runId, 'manager_review', {
      approve: true,
      note: 'ok, known courier issue',
    });
    const run = await runEnded(e2e, runId, 30_000);
    const steps = await stepsOf(e2e, runId);
    expect(run.status).toBe('done');
    expect(steps.manager_review).toMatchObject({ status: 'succeeded', output: { approve: true } });
    expect(steps.declined?.status).toBe('skipped');
    expect(payments.refunds.filter((refund) => refund.customerId === 'c_88')).toEqual([
      expect.objectContaining({ amount: 250 }),
    ]);
    expect(steps.draft_reply?.status).toBe('succeeded');
  });
});
