import { beforeAll, describe, expect, it } from 'vitest';
import {
  APPROVER,
  applyWorkflowText,
  type E2eStack,
  getAudit,
  getRun,
  openPage,
  postForm,
  runEnded,
} from '../e2e/support.ts';
import { graphStackForSuite } from '../support/graph-stack.ts';
import { gatedGraph, startGated, stepApproval } from './gated-support.ts';
import { stepsOf } from './support.ts';

describe('a service step gated needs_approval, on the local stack', () => {
  const graph = graphStackForSuite();
  let e2e: E2eStack;
  let workflowId: string;

  beforeAll(async () => {
    e2e = graph.e2e;
    workflowId = await applyWorkflowText(
      e2e,
      'e2e-gated-refund',
      gatedGraph('e2e-gated-refund', graph.payments.url),
    );
  });

  it('waits with the exact call, and once approved pays once under the ledger', async () => {
    const runId = await startGated(e2e, workflowId, 30);
    const { approval, link } = await stepApproval(e2e, runId);
    const waiting = await stepsOf(e2e, runId);
    expect(waiting.refund).toMatchObject({
      status: 'waiting',
      attempt: 1,
      input: { customerId: 'c_7', amount: 30 },
    });
    expect(approval).toMatchObject({
      status: 'pending',
      tool: 'issue_refund',
      args: { customerId: 'c_7', amount: 30 },
      step: { stepId: 'refund', attempt: 1 },
      turn: 0,
    });
    expect((await getRun(e2e, runId)).pendingApprovalIds).toEqual([approval.approvalId]);
    expect(graph.payments.refunds).toHaveLength(0);

    const form = await openPage(link);
    const page = await (await fetch(link)).text();
    expect(page).toContain('refund');
    expect(page).toContain('No model proposed it');
    const decided = await postForm(form.action, { t: form.t, nonce: form.nonce, decision: 'approve' });
    expect(decided.status).toBe(200);

    const run = await runEnded(e2e, runId);
    expect(run.status).toBe('done');
    expect(run.pendingApprovalIds).toEqual([]);
    expect(
      graph.payments.refunds.filter((refund) => refund.customerId === 'c_7' && refund.amount === 30),
    ).toHaveLength(1);
    const loaded = await e2e.stack.store.loadGraphRun(runId, { ledger: true });
    expect(loaded?.ledger).toEqual([expect.objectContaining({ tool: 'issue_refund', status: 'completed' })]);
    expect(loaded?.steps.find((step) => step.stepId === 'refund')).toMatchObject({ status: 'succeeded' });
    expect((await e2e.stack.store.getApproval(approval.approvalId))?.status).toBe('approved');
    // A second decision changes nothing: single use.
    const again = await postForm(form.action, { t: form.t, nonce: form.nonce, decision: 'deny' });
    expect(again.status).not.toBe(200);
    const audit = await getAudit(e2e, runId);
    expect(audit.verification.ok).toBe(true);
    const types = audit.entries.map((entry) => entry.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'approval_requested',
        'approval_notified',
        'approval_decided',
        'dispatch',
        'settle',
      ]),
    );
    expect(types.indexOf('approval_decided')).toBeLessThan(types.indexOf('dispatch'));
    expect(audit.entries.find((entry) => entry.type === 'dispatch')?.data).toMatchObject({ via: 'approved' });
  });

  it('denied: never called, the step fails `denied` and the run fails', async () => {
    const before = graph.payments.refunds.length;
    const runId = await startGated(e2e, workflowId, 31);
    const { link } = await stepApproval(e2e, runId);
    const form = await openPage(link);
    expect((await postForm(form.action, { t: form.t, nonce: form.nonce, decision: 'deny' })).status).toBe(
      200,
    );

    const run = await runEnded(e2e, runId);
    expect(run.status).toBe('failed');
    expect(graph.payments.refunds).toHaveLength(before);
    const steps = await stepsOf(e2e, runId);
    expect(steps.refund).toMatchObject({ status: 'failed', error: { name: 'ApprovalDenied' } });
    expect(steps.refund?.error?.message).toMatch(new RegExp(`^denied: an approver \\(${APPROVER}\\) denied`));
    const loaded = await e2e.stack.store.loadGraphRun(runId, { ledger: true });
    expect(loaded?.ledger).toEqual([expect.objectContaining({ status: 'refused', attempts: 0 })]);
    const audit = await getAudit(e2e, runId);
    expect(audit.entries.map((entry) => entry.type)).not.toContain('dispatch');
    expect(audit.entries.find((entry) => entry.type === 'denial')?.data).toMatchObject({
      cause: 'approver_denied',
    });
  });

  it('the workflow disabled while the approval waits: approved, never called', async () => {
    const before = graph.payments.refunds.length;
    const runId = await startGated(e2e, workflowId, 32);
    const { link } = await stepApproval(e2e, runId);
    await e2e.client.post(`/v1/workflows/${workflowId}/disable`, {});
    try {
      const form = await openPage(link);
      expect(
        (await postForm(form.action, { t: form.t, nonce: form.nonce, decision: 'approve' })).status,
      ).toBe(200);
      const run = await runEnded(e2e, runId);
      expect(run.status).toBe('failed');
      expect(graph.payments.refunds).toHaveLength(before);
      const steps = await stepsOf(e2e, runId);
      expect(steps.refund).toMatchObject({ status: 'failed', error: { name: 'GateDenied' } });
      expect(steps.refund?.error?.message).toContain('withdrawn or disabled');
    } finally {
      await e2e.client.post(`/v1/workflows/${workflowId}/enable`, {});
    }
  });
});
