/**
 * A crash between the refund call and its settle, on the local stack, never pays twice. The service step's
 * store dies (LambdaFault: `Lambda.Unknown`, then `Sandbox.Timedout`, as AWS reports a crash and a function
 * timeout) on the commit that would settle the refund, after the payments server took the payment. The graph
 * definition's crash Retry re-runs the step; the ledger finds the row `pending`:
 * - idempotent (the example's refund): sent again with the same Idempotency-Key, which the payments server
 *   recognises: one refund, and the step succeeds with it;
 * - not idempotent: settled "outcome unknown" and never repeated; the step and the run fail, one refund.
 */
import { describe, expect, it } from 'vitest';
import type { RunChange } from '../../shared/core/store-port.ts';
import type { ServiceStepDeps } from '../../shared/graph-run/service-step.ts';
import { LambdaFault } from '../../shared/local/sfn/index.ts';
import { applyWorkflowText, runEnded } from '../e2e/support.ts';
import { graphStackForSuite } from '../support/graph-stack.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';
import { refundGraph, startRefund, stepsOf } from './support.ts';

/** Kills the service step on its next settle commits of `issue_refund`, one per listed fault. */
function killBeforeSettle(faults: ('crash' | 'timeout')[], thrown: string[]) {
  return (deps: ServiceStepDeps): ServiceStepDeps => {
    const store = withStoreOverrides(deps.store, {
      commit: async (change: RunChange) => {
        const settling = (change.ledgerSettle ?? []).some((row) => row.tool === 'issue_refund');
        const fault = settling ? faults.shift() : undefined;
        if (fault) {
          thrown.push(fault);
          throw new LambdaFault(fault, 'killed between the refund call and its settle');
        }
        return deps.store.commit(change);
      },
    });
    return { ...deps, store };
  };
}

describe('a crash between the refund call and its settle', () => {
  const thrown: string[] = [];
  const faults: ('crash' | 'timeout')[] = [];
  const suite = graphStackForSuite({ wrapServiceDeps: killBeforeSettle(faults, thrown) });

  it('an idempotent refund is sent again with the same key and paid once', async () => {
    const { e2e, payments } = suite;
    faults.push('crash', 'timeout');
    const workflowId = await applyWorkflowText(
      e2e,
      'refund-request',
      refundGraph('refund-request', payments.url),
    );
    const runId = await startRefund(e2e, workflowId, 'Order 1: the vase arrived broken. Customer c_17.');
    const run = await runEnded(e2e, runId, 30_000);
    expect(thrown).toEqual(['crash', 'timeout']);
    expect(run.status).toBe('done');
    expect(payments.requests).toBe(3);
    expect(payments.refunds).toHaveLength(1);
    const keys = new Set(payments.refunds.map((refund) => refund.idempotencyKey));
    expect(keys.size).toBe(1);
    const steps = await stepsOf(e2e, runId);
    expect(steps.issue_refund).toMatchObject({
      status: 'succeeded',
      attempt: 1,
      output: { refundId: 'rf_1' },
    });
    const ledger = (await e2e.stack.store.loadGraphRun(runId, { ledger: true }))?.ledger;
    expect(ledger).toEqual([expect.objectContaining({ tool: 'issue_refund', status: 'completed' })]);
  });

  it('a refund that is not idempotent is never repeated: outcome unknown, the run fails, paid once', async () => {
    const { e2e, payments } = suite;
    thrown.length = 0;
    faults.push('crash');
    const before = payments.refunds.length;
    const graph = refundGraph('refund-request', payments.url)
      .replace('idempotent: true', 'idempotent: false')
      .replace('description: Triage', 'description: Not idempotent. Triage');
    const workflowId = await applyWorkflowText(e2e, 'refund-request', graph);
    const runId = await startRefund(e2e, workflowId, 'Order 1: the vase arrived broken. Customer c_17.');
    const run = await runEnded(e2e, runId, 30_000);
    expect(thrown).toEqual(['crash']);
    expect(run.status).toBe('failed');
    expect(run.error?.message).toContain('issue_refund');
    expect(payments.refunds.length - before).toBe(1);
    const steps = await stepsOf(e2e, runId);
    expect(steps.issue_refund).toMatchObject({ status: 'failed', error: { name: 'OutcomeUnknown' } });
    expect(steps.draft_reply).toBeUndefined();
  });
});
