/**
 * What the browser tests of the refund graph share: the fake payments service, a data directory (with the
 * owners' API keys when given), the local stack started while the browser launches, and the refund example's
 * large amount (the refund-large-* fixtures: 250 for c_88) waiting on the manager, with the human-task notice
 * from the inbox. Everything started is registered in `closers`, in the order it must close in reverse.
 */
import { writeFile } from 'node:fs/promises';
import { type FakePayments, startFakePayments } from '../../shared/demo/fake-payments.ts';
import type { ApprovalNotice } from '../../shared/notify/index.ts';
import {
  applyWorkflowText,
  createOwnTable,
  type E2eStack,
  eventually,
  removeDir,
  startE2eStack,
  tempDataDir,
} from '../e2e/support.ts';
import { refundGraph, startRefund } from '../graph/support.ts';
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
  const payments = await startFakePayments();
  closers.push(() => payments.close());
  const dataDir = await tempDataDir();
  closers.push(() => removeDir(dataDir));
  if (options.apiKeys) {
    await writeFile(`${dataDir}/api-keys.json`, JSON.stringify({ keys: options.apiKeys }));
  }
  const e2e = await startWhileLaunching(
    launching,
    startE2eStack(await createOwnTable(), {
      dataDir,
      allowLoopbackPorts: [payments.port],
      internalHosts: ['127.0.0.1'],
    }),
  );
  closers.push(() => e2e.stack.stop());
  const launched = await launching;
  closers.push(() => launched.close());

  const workflowId = await applyWorkflowText(e2e, 'refund-large', refundGraph('refund-large', payments.url));
  const runId = await startRefund(e2e, workflowId, 'My order never arrived. Customer c_88.');
  const notice = await eventually('the manager review link', async () =>
    e2e.stack.inbox
      .notices()
      .find((candidate) => candidate.runId === runId && candidate.subject === 'human_task'),
  );
  return { e2e, payments, workflowId, runId, notice, launched };
}
