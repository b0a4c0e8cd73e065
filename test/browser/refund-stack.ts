/**
 * What the browser tests of the refund graph share: the graph stack with the real human-task service
 * (test/support/graph-stack.ts; the owners' API keys when given) started while the browser launches, and the
 * refund example's large amount (the refund-large-* fixtures: 250 for c_88) waiting on the manager, with the
 * human-task notice from the inbox. Everything started is registered in `closers`, in the order it must close in
 * reverse.
 */
import type { FakePayments } from '../../shared/demo/fake-payments.ts';
import type { ApprovalNotice } from '../../shared/notify/index.ts';
import { applyWorkflowText, type E2eStack, eventually } from '../e2e/support.ts';
import { refundGraph, startRefund } from '../graph/support.ts';
import { startGraphStack } from '../support/graph-stack.ts';
import { startWhileLaunching } from './launch.ts';

export type RefundWaiting = {
  e2e: E2eStack;
  payments: FakePayments;
  workflowId: string;
  runId: string;
  /** The manager's human-task notice, with its signed link. */
  notice: ApprovalNotice;
};

export async function startLargeRefundWhileLaunching<Launched extends { close(): Promise<void> }>(
  launching: Promise<Launched>,
  closers: (() => Promise<unknown>)[],
  options: { apiKeys?: Record<string, { owner: string }> } = {},
): Promise<RefundWaiting & { launched: Launched }> {
  const graph = await startWhileLaunching(
    launching,
    startGraphStack({ humanTasks: 'service', ...(options.apiKeys ? { apiKeys: options.apiKeys } : {}) }),
  );
  closers.push(() => graph.stop());
  const launched = await launching;
  closers.push(() => launched.close());

  const { e2e, payments } = graph;
  const workflowId = await applyWorkflowText(e2e, 'refund-large', refundGraph('refund-large', payments.url));
  const runId = await startRefund(e2e, workflowId, 'My order never arrived. Customer c_88.');
  const notice = await eventually('the manager review link', async () =>
    e2e.stack.inbox
      .notices()
      .find((candidate) => candidate.runId === runId && candidate.subject === 'human_task'),
  );
  return { e2e, payments, workflowId, runId, notice, launched };
}
