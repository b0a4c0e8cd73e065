/**
 * The two writes of a service step's call, as the agent kind makes them (shared/core/tool-dispatch.ts): the
 * step `running` with its ledger row `pending` before anything is sent (under the live head), then the step's
 * outcome with the row settled once. A call that is refused (gate, approver, expiry) is a `refused` row and a
 * `denial` entry, as a turn's refusal is, and the step fails with the reason.
 */
import type { Action } from '../core/actions.ts';
import { cutText } from '../core/byte-caps.ts';
import { isoAt, type RunHandle } from '../core/engine.ts';
import { argsHashOf, idempotencyKeyFor } from '../core/identity.ts';
import type { ToolOutcome } from '../core/ports.ts';
import type { AuditInput } from '../core/store-port.ts';
import { capRefusal, contentHashOf } from '../core/transcript-limits.ts';
import { settleAudit, settledRow } from '../core/uncertain.ts';
import type { GraphDefinition } from '../graph/definition.ts';
import type { InvocationSteps } from '../graph/expression-bounds.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import type { LedgerRow } from '../schemas/ledger.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import type { ServiceTaskNode } from './agent-view.ts';
import { decideNext, mergeSteps } from './decide.ts';
import type { GraphNext, StepRef } from './ports.ts';
import { dispatch, outputOf, type ServiceStepDeps } from './service-dispatch.ts';
import { type LivePolicy, liveHeadOf } from './service-policy.ts';
import { moveStep, writesOf } from './step-writes.ts';

/** One attempt of one service step, as read: what its writes and its next decision need. */
export type StepCall = {
  deps: ServiceStepDeps & { decideAfter?: false };
  definition: GraphDefinition;
  node: ServiceTaskNode;
  view: WorkflowDefinition;
  handle: RunHandle;
  /** The run's steps, updated after each write of this attempt. */
  steps: GraphStep[];
  ref: StepRef;
  toolUseId: string;
  /**
   * The evaluation steps of this invocation (invocationSteps(), shared/graph/expressions.ts): the args and the
   * decision after the step each take a decision's allowance from it, on every try after a write conflict too.
   */
  invocation: InvocationSteps;
};

/** Why a call was not made: the audit's `cause`, the step error's name, and the reason (`denied: …`). */
export type Refusal = {
  cause: 'gate' | 'approver_denied' | 'expired' | 'undeliverable' | 'args_mismatch';
  name: 'GateDenied' | 'ApprovalDenied' | 'ApprovalExpired';
  reason: string;
};

export const stepOf = (call: StepCall): GraphStep | undefined =>
  call.steps.find((candidate) => candidate.stepId === call.ref.stepId);

/** The run without `approvalId` among the approvals it waits on (its step has moved past it). */
const releasing =
  (approvalId: string | undefined) =>
  (run: Run): Run =>
    approvalId === undefined || !run.pendingApprovalIds.includes(approvalId)
      ? run
      : { ...run, pendingApprovalIds: run.pendingApprovalIds.filter((id) => id !== approvalId) };

/** Decides what is next after the step, unless it runs inside the Map (Advance decides there). */
export function decideAfter(call: StepCall): Promise<GraphNext> {
  return call.deps.decideAfter === false
    ? Promise.resolve({ next: 'stop' })
    : decideNext(call.deps, call.handle.run, call.steps, call.definition, call.invocation.decision());
}

/**
 * Ends the attempt in one write: the step `succeeded` or `failed`, the pending row settled (or, refused, a
 * `refused` row), the approval it waited on let go, and the audit entries; then decides what is next.
 */
export async function finishStep(
  call: StepCall,
  outcome: ToolOutcome,
  options: { settle?: LedgerRow | undefined; args?: unknown; refusal?: Refusal } = {},
): Promise<GraphNext> {
  const { settle, args, refusal } = options;
  const at = isoAt(call.deps.clock);
  const current = stepOf(call);
  const errorName = refusal?.name ?? (outcome.outcomeUnknown ? 'OutcomeUnknown' : 'ActionFailed');
  const move = moveStep({
    runId: call.handle.run.runId,
    stepId: call.ref.stepId,
    type: 'service_task',
    current,
    status: outcome.isError ? 'failed' : 'succeeded',
    at,
    fields: {
      attempt: call.ref.attempt,
      ...(args === undefined ? {} : { input: args }),
      ...(outcome.isError
        ? { error: { name: errorName, message: cutText(refusal?.reason ?? outcome.content, 2000) } }
        : { output: outputOf(outcome.content) }),
    },
    ...(outcome.isError ? { reason: refusal?.reason ?? outcome.content } : {}),
  });
  const { steps: writes, audit } = writesOf([move]);
  const refused = refusal ? refusedRow(call, outcome, args, at) : undefined;
  await call.handle.commit({
    steps: writes,
    next: releasing(current?.approvalId),
    ...(settle ? { ledgerSettle: [settledRow(settle, outcome, at)] } : {}),
    ...(refused ? { ledgerCreate: [refused] } : {}),
    audit: [
      ...(settle
        ? [settleAudit({ id: call.toolUseId }, call.node.action, outcome, { stepId: call.ref.stepId })]
        : []),
      ...(refusal && refused ? denialAudit(call, refusal, refused, outcome) : []),
      ...audit,
    ],
  });
  call.steps = mergeSteps(call.steps, [move]);
  return decideAfter(call);
}

/** A refusal as the step's outcome: `denied: …` or `expired: …`, never sent. */
export function refuseStep(call: StepCall, refusal: Refusal, args?: unknown): Promise<GraphNext> {
  const outcome: ToolOutcome = {
    content: capRefusal(`${refusal.reason}. This call was not executed.`),
    isError: true,
  };
  return finishStep(call, outcome, { refusal, ...(args === undefined ? {} : { args }) });
}

function refusedRow(call: StepCall, outcome: ToolOutcome, args: unknown, at: string): LedgerRow {
  const { runId } = call.handle.run;
  return {
    schemaVersion: 1,
    runId,
    toolUseId: call.toolUseId,
    turn: 0,
    tool: call.node.action,
    argsHash: argsHashOf(call.node.action, args ?? null),
    idempotent: false,
    idempotencyKey: idempotencyKeyFor(runId, call.ref.attempt, call.toolUseId),
    status: 'refused',
    attempts: 0,
    outcome,
    createdAt: at,
    settledAt: at,
  };
}

function denialAudit(call: StepCall, refusal: Refusal, row: LedgerRow, outcome: ToolOutcome): AuditInput[] {
  const { toolUseId } = call;
  return [
    ...(refusal.cause === 'gate'
      ? [
          {
            type: 'gate_decision' as const,
            actor: 'system',
            data: { toolUseId, tool: row.tool, decision: 'deny' },
          },
        ]
      : []),
    {
      type: 'denial',
      actor: 'system',
      data: {
        toolUseId,
        tool: row.tool,
        cause: refusal.cause,
        reason: capRefusal(refusal.reason),
        argsHash: row.argsHash,
        contentHash: contentHashOf(outcome.content),
        stepId: call.ref.stepId,
      },
    },
  ];
}

/**
 * The call: step `running` + row `pending` (+ the approval let go) in one write under the live head, then the
 * dispatch with the row's Idempotency-Key, then `finishStep` settles it once.
 */
export async function startCall(
  call: StepCall,
  policy: LivePolicy,
  action: Action,
  input: unknown,
  approvalId?: string,
): Promise<GraphNext> {
  const run = call.handle.run;
  const at = isoAt(call.deps.clock);
  const { toolUseId } = call;
  const pending: LedgerRow = {
    schemaVersion: 1,
    runId: run.runId,
    toolUseId,
    turn: 0,
    tool: action.name,
    argsHash: argsHashOf(action.name, input),
    idempotent: action.idempotent,
    idempotencyKey: idempotencyKeyFor(run.runId, call.ref.attempt, toolUseId),
    status: 'pending',
    attempts: 1,
    createdAt: at,
  };
  const running = moveStep({
    runId: run.runId,
    stepId: call.ref.stepId,
    type: 'service_task',
    current: stepOf(call),
    status: 'running',
    at,
    fields: { attempt: call.ref.attempt, input },
  });
  await call.handle.commit({
    steps: [running.write],
    ledgerCreate: [pending],
    next: releasing(approvalId),
    ...liveHeadOf(run, policy),
    audit: [
      running.audit,
      ...(approvalId === undefined
        ? [
            {
              type: 'gate_decision' as const,
              actor: 'system',
              data: { toolUseId, tool: action.name, decision: 'allow' },
            },
          ]
        : []),
      {
        type: 'dispatch',
        actor: 'system',
        data: {
          toolUseId,
          tool: pending.tool,
          argsHash: pending.argsHash,
          idempotencyKey: pending.idempotencyKey,
          ...(approvalId === undefined ? {} : { via: 'approved', approvalId }),
        },
      },
    ],
  });
  call.steps = mergeSteps(call.steps, [running]);
  const redaction = { credRefs: call.definition.credRefs, rerun: false };
  return finishStep(call, await dispatch(call.deps, call.handle.run, action, input, pending, redaction), {
    settle: pending,
    args: input,
  });
}
