/**
 * Service steps check the live workflow head as an agent turn does before a side effect, fail closed, with no
 * read of their own: the write that lets the call go ahead carries the head as a condition.
 * - An allowed step whose workflow is disabled after the step read its run, just before its `pending` write
 *   (the kill switch lands in between): the write fails, the head is read, the call is refused, never sent.
 * - A gated step whose workflow gets a new version gating the action `deny` while the approval waits:
 *   approved all the same, the call is refused (the stricter gate of the two versions wins), never sent.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RunChange } from '../../shared/core/store-port.ts';
import type { ServiceStepDeps } from '../../shared/graph-run/service-step.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { applyWorkflowText, openPage, postForm, runEnded } from '../e2e/support.ts';
import { graphStackForSuite } from '../support/graph-stack.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';
import { gatedGraph, startGated, stepApproval } from './gated-support.ts';
import { stepsOf } from './support.ts';

/** Runs `beforeWrite` once, right before the next commit that lets a call go ahead (it carries `liveHead`). */
let beforeWrite: (() => Promise<void>) | undefined;
const killSwitchBetweenReadAndWrite = (deps: ServiceStepDeps): ServiceStepDeps => ({
  ...deps,
  store: withStoreOverrides(deps.store, {
    commit: async (change: RunChange) => {
      const hook = change.liveHead ? beforeWrite : undefined;
      beforeWrite = undefined;
      await hook?.();
      return deps.store.commit(change);
    },
  }),
});

describe('service steps under the live workflow head', () => {
  const graph = graphStackForSuite({ wrapServiceDeps: killSwitchBetweenReadAndWrite });

  it('refuses an allowed call when the workflow is disabled between the step read and its write', async () => {
    const { e2e, payments } = graph;
    const name = 'e2e-live-head-allowed';
    const ungated = gatedGraph(name, payments.url).replace(
      'gates: { issue_refund: needs_approval }',
      'gates: {}',
    );
    const workflowId = await applyWorkflowText(e2e, name, ungated);
    beforeWrite = async () => {
      await e2e.client.post(`/v1/workflows/${workflowId}/disable`, {});
    };
    const { body } = await e2e.client.post<{ run: Run }>(
      `/v1/workflows/${workflowId}/runs`,
      { input: { customerId: 'c_live', amount: 50 } },
      { headers: { 'Idempotency-Key': randomUUID() } },
    );
    const run = await runEnded(e2e, body.run.runId);
    expect(beforeWrite).toBeUndefined();
    expect(run.status).toBe('failed');
    expect(payments.refunds.filter((refund) => refund.customerId === 'c_live')).toEqual([]);
    const steps = await stepsOf(e2e, run.runId);
    expect(steps.refund).toMatchObject({ status: 'failed', error: { name: 'GateDenied' } });
    expect(steps.refund?.error?.message).toContain('withdrawn or disabled');
    const loaded = await e2e.stack.store.loadGraphRun(run.runId, { ledger: true });
    expect(loaded?.ledger.map((row) => row.status)).toEqual(['refused']);
  });

  it('refuses an approved call once a newer version gates the action deny', async () => {
    const { e2e, payments } = graph;
    const name = 'e2e-live-head-republished';
    const workflowId = await applyWorkflowText(e2e, name, gatedGraph(name, payments.url));
    const runId = await startGated(e2e, workflowId, 60);
    const { link } = await stepApproval(e2e, runId);
    await applyWorkflowText(
      e2e,
      name,
      gatedGraph(name, payments.url).replace('issue_refund: needs_approval', 'issue_refund: deny'),
    );
    const form = await openPage(link);
    expect((await postForm(form.action, { t: form.t, nonce: form.nonce, decision: 'approve' })).status).toBe(
      200,
    );
    const run = await runEnded(e2e, runId);
    expect(run.status).toBe('failed');
    expect(payments.refunds.filter((refund) => refund.amount === 60)).toEqual([]);
    const steps = await stepsOf(e2e, runId);
    expect(steps.refund).toMatchObject({ status: 'failed', error: { name: 'GateDenied' } });
  });
});
