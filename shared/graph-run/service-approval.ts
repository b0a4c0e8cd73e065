/**
 * A service step gated `needs_approval`, through the approval machinery of agent runs (docs/approvals.md):
 * the same record (shared/core/approval-record.ts), signed links and notices (RequestApproval), single-use
 * decision (the approval pages) and expiry (Expire: fail closed). The step waits `waiting` with its exact
 * arguments; its own task-token wait (`ApproveServiceStep`) is answered by the decision; then the step runs
 * again and acts on it: approved → the call under the ledger, as an allowed step; denied, undeliverable or
 * expired → the step fails, never called. No model is involved: the approver sees the action, the arguments,
 * the run and the step.
 */
import { approvalRequestedAudit, newApproval } from '../core/approval-record.ts';
import { isoAt } from '../core/engine.ts';
import type { GateResult } from '../core/gate.ts';
import { evaluateGate } from '../core/gate.ts';
import { argsHashOf } from '../core/identity.ts';
import type { Approval } from '../schemas/approval.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import { mergeSteps } from './decide.ts';
import type { GraphNext } from './ports.ts';
import { type Refusal, refuseStep, type StepCall, startCall, stepOf } from './service-call.ts';
import { type LivePolicy, liveHeadOf } from './service-policy.ts';
import { moveStep } from './step-writes.ts';

const NO_DECISION = 'expired: no human decided before the approval timed out, so it counts as denied';
const NO_APPROVER = 'denied: no approver could be reached to decide this call';

/**
 * Asks: the step `waiting` (its exact arguments as input, the approval's id), the approval record, the run
 * waiting on it, and the audit entries, in one write under the live head. Then the step waits.
 */
export async function requestStepApproval(
  call: StepCall,
  policy: LivePolicy,
  gate: Extract<GateResult, { decision: 'needs_approval' }>,
): Promise<GraphNext> {
  // Arguments too large to hold for approval were denied by the gate (gate.ts), naming the field.
  const run = call.handle.run;
  const { stepId, attempt } = call.ref;
  const approval = newApproval(
    run,
    {
      toolUseId: call.toolUseId,
      turn: 0,
      tool: gate.action.name,
      input: gate.input,
      approvers: gate.approvers,
      timeoutSeconds: gate.timeoutSeconds,
      reason: `No model proposed this call: step '${stepId}' (attempt ${attempt}) of this graph run calls '${gate.action.name}', with arguments from the graph's templates over the run's data.`,
      step: { stepId, attempt },
    },
    call.deps.clock.nowMs(),
  );
  const waiting = moveStep({
    runId: run.runId,
    stepId,
    type: 'service_task',
    current: stepOf(call),
    status: 'waiting',
    at: isoAt(call.deps.clock),
    fields: { attempt, input: gate.input, approvalId: approval.approvalId },
  });
  await call.handle.commit({
    steps: [waiting.write],
    approvalCreate: [approval],
    next: (current) => ({
      ...current,
      pendingApprovalIds: [
        ...current.pendingApprovalIds.filter((id) => id !== approval.approvalId),
        approval.approvalId,
      ],
    }),
    ...liveHeadOf(run, policy),
    audit: [waiting.audit, ...approvalRequestedAudit(approval, 'system')],
  });
  call.steps = mergeSteps(call.steps, [waiting]);
  return awaitApproval(call, approval);
}

/**
 * Where the state machine goes while the approval is pending: inside the Map, to the step's own wait for what
 * is left of its window (at least 1 s: a window already over times out at once, and Expire records it); a lone
 * step (the fast path) goes through the Map with itself as the only item, so every approval wait is one state.
 */
function awaitApproval(call: StepCall, approval: Approval): GraphNext {
  if (call.deps.decideAfter !== false) return { next: 'steps', steps: [call.ref] };
  const left = Math.ceil((Date.parse(approval.expiresAt) - call.deps.clock.nowMs()) / 1000);
  return { next: 'approval', approvalId: approval.approvalId, timeoutSeconds: Math.max(1, left) };
}

/** A waiting step's approval, read: still pending → wait on; approved → the call; anything else → refused. */
export async function settleStepApproval(
  call: StepCall,
  policy: LivePolicy,
  step: GraphStep & { approvalId: string },
): Promise<GraphNext> {
  const approval = await call.deps.store.getApproval(step.approvalId);
  // Fail closed: a record that is gone or is not this attempt's never lets the call go ahead.
  if (approval?.runId !== call.handle.run.runId || approval.toolUseId !== call.toolUseId) {
    const reason = 'denied: the approval this step waited on could not be found';
    return refuseStep(call, { cause: 'approver_denied', name: 'ApprovalDenied', reason }, step.input);
  }
  if (approval.status === 'pending') return awaitApproval(call, approval);
  const refusal = refusalOf(approval);
  if (refusal) return refuseStep(call, refusal, approval.args);
  // Approved: exactly what was approved, if it is still the step's call and still granted (the live head).
  if (approval.tool !== call.node.action || argsHashOf(approval.tool, approval.args) !== approval.argsHash) {
    const reason = 'denied: the approved arguments do not match the requested call';
    return refuseStep(call, { cause: 'args_mismatch', name: 'ApprovalDenied', reason }, approval.args);
  }
  const gate = evaluateGate(
    { name: approval.tool, input: approval.args },
    policy.grant,
    call.deps.actions,
    call.view,
  );
  if (gate.decision === 'deny')
    return refuseStep(
      call,
      { cause: 'gate', name: 'GateDenied', reason: `denied: ${gate.reason}` },
      approval.args,
    );
  return startCall(call, policy, gate.action, gate.input, approval.approvalId);
}

/** Why a decided approval lets nothing run; none when it was approved. */
function refusalOf(approval: Approval): Refusal | undefined {
  if (approval.status === 'denied')
    return {
      cause: 'approver_denied',
      name: 'ApprovalDenied',
      reason: `denied: an approver (${approval.decidedBy ?? 'unknown'}) denied this call`,
    };
  if (approval.status === 'undeliverable')
    return { cause: 'undeliverable', name: 'ApprovalDenied', reason: NO_APPROVER };
  if (approval.status === 'expired')
    return { cause: 'expired', name: 'ApprovalExpired', reason: NO_DECISION };
  return undefined;
}

export const waitsOnApproval = (
  step: GraphStep | undefined,
  attempt: number,
): step is GraphStep & { approvalId: string } =>
  step?.status === 'waiting' && step.attempt === attempt && step.approvalId !== undefined;
