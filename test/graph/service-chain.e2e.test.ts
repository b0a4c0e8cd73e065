/**
 * The vertical slice on the local stack: a graph run started through the API runs on the graph state machine
 * (the CDK-synthesized definition), its service step calls a loopback payments server under the ledger, and
 * the run ends done with the step's structured output and a verifiable audit chain.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Run } from '../../shared/schemas/run.ts';
import { applyWorkflowText, getAudit, runEnded } from '../e2e/support.ts';
import { graphStackForSuite } from '../support/graph-stack.ts';

const graph = (payments: string) => `kind: graph
name: e2e-graph-refund
description: e2e - one service step
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1 }
connectors:
  issue_refund:
    kind: http
    description: Pay a refund.
    method: POST
    url: ${payments}/refunds
    input:
      type: object
      properties: { customerId: { type: string }, amount: { type: number }, reason: { type: string } }
      required: [customerId, amount]
    idempotent: true
nodes:
  - { id: start, type: start }
  - id: refund
    type: service_task
    action: issue_refund
    args: { customerId: '{{ input.customerId }}', amount: '{{ input.amount }}', reason: 'refund for {{ input.customerId }}' }
  - { id: done, type: end }
edges:
  - { from: start, to: refund }
  - { from: refund, to: done }
`;

describe('a graph run with one service step, on the local stack', () => {
  const suite = graphStackForSuite();

  it('runs start → refund → end and pays once', async () => {
    const { e2e, payments } = suite;
    const workflowId = await applyWorkflowText(e2e, 'e2e-graph-refund', graph(payments.url));
    const { body } = await e2e.client.post<{ run: Run }>(
      `/v1/workflows/${workflowId}/runs`,
      { input: { customerId: 'c_42', amount: 30 } },
      { headers: { 'Idempotency-Key': randomUUID() } },
    );
    expect(body.run.kind).toBe('graph');
    const run = await runEnded(e2e, body.run.runId);
    expect(run.status).toBe('done');
    expect(payments.refunds).toEqual([
      expect.objectContaining({ customerId: 'c_42', amount: 30, reason: 'refund for c_42' }),
    ]);
    const loaded = await e2e.stack.store.loadGraphRun(run.runId, { ledger: true });
    const refund = loaded?.steps.find((step) => step.stepId === 'refund');
    expect(refund).toMatchObject({ status: 'succeeded', attempt: 1, output: { refundId: 'rf_1' } });
    expect(loaded?.steps.find((step) => step.stepId === 'done')?.status).toBe('succeeded');
    expect(loaded?.ledger).toEqual([expect.objectContaining({ status: 'completed', tool: 'issue_refund' })]);
    expect(JSON.parse(run.result?.text ?? '{}')).toMatchObject({ refund: { refundId: 'rf_1' } });
    const audit = await getAudit(e2e, run.runId);
    expect(audit.verification.ok).toBe(true);
    expect(audit.entries.map((entry) => entry.type)).toEqual(
      expect.arrayContaining(['run_created', 'step_changed', 'dispatch', 'settle', 'delivered']),
    );
  });
});
