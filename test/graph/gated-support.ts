/** Gated service step e2e support: a one-step refund graph whose call needs approval, and its approval wait. */
import { randomUUID } from 'node:crypto';
import type { Approval } from '../../shared/schemas/approval.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { APPROVER, type E2eStack, eventually } from '../e2e/support.ts';
import { stepsOf } from './support.ts';

/** start → refund (issue_refund, gated needs_approval) → done. */
export const gatedGraph = (name: string, payments: string) => `kind: graph
name: ${name}
description: e2e - one service step that needs approval
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1 }
approvals: { approvers: [${APPROVER}], timeoutSeconds: 60 }
gates: { issue_refund: needs_approval }
connectors:
  issue_refund:
    kind: http
    description: Pay a refund.
    method: POST
    url: ${payments}/refunds
    input:
      type: object
      properties: { customerId: { type: string }, amount: { type: number } }
      required: [customerId, amount]
    idempotent: true
nodes:
  - { id: start, type: start }
  - id: refund
    type: service_task
    action: issue_refund
    args: { customerId: '{{ input.customerId }}', amount: '{{ input.amount }}' }
  - { id: done, type: end }
edges:
  - { from: start, to: refund }
  - { from: refund, to: done }
`;

export async function startGated(e2e: E2eStack, workflowId: string, amount: number): Promise<string> {
  const { body } = await e2e.client.post<{ run: Run }>(
    `/v1/workflows/${workflowId}/runs`,
    { input: { customerId: 'c_7', amount } },
    { headers: { 'Idempotency-Key': randomUUID() } },
  );
  return body.run.runId;
}

/** The step's approval once its wait holds a token (`token` other than `not`) and the approver has a link. */
export async function stepApproval(
  e2e: E2eStack,
  runId: string,
  not?: string,
): Promise<{ approval: Approval; link: string }> {
  return eventually(`run ${runId}'s step approval to wait with a link sent`, async () => {
    const steps = await stepsOf(e2e, runId);
    const approvalId = steps.refund?.approvalId;
    const approval = approvalId ? await e2e.stack.store.getApproval(approvalId) : undefined;
    const notices = e2e.stack.inbox.notices().filter((candidate) => candidate.runId === runId);
    const notice = notices.at(-1);
    if (!approval?.taskToken || approval.taskToken === not || !notice) return undefined;
    return { approval, link: notice.url };
  });
}
