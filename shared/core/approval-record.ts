/**
 * One approval record and its audit entries, whoever asks: a turn's gated tool call (the model proposed it) or
 * a graph `service_task` step (its definition did). Both go through the same record, links, notices, single-use
 * decision and expiry (docs/approvals.md); only who asked and why differ.
 */
import type { Approval } from '../schemas/approval.ts';
import type { Run } from '../schemas/run.ts';
import { cutText } from './byte-caps.ts';
import { approvalIdFor, argsHashOf } from './identity.ts';
import type { AuditInput } from './store-port.ts';

export type ApprovalRequest = {
  /** The ledger identity of the call: the approval id derives from it, so a retry finds the same record. */
  toolUseId: string;
  turn: number;
  tool: string;
  /** The exact arguments that run if approved. */
  input: unknown;
  approvers: string[];
  timeoutSeconds: number;
  /** The model's stated reason, or what a graph step says of itself. */
  reason: string;
  step?: Approval['step'];
};

/** A pending approval of `run` for `request`, expiring `timeoutSeconds` after `nowMs`. */
export function newApproval(run: Run, request: ApprovalRequest, nowMs: number): Approval {
  return {
    schemaVersion: 1,
    approvalId: approvalIdFor(run.runId, request.toolUseId),
    owner: run.owner,
    runId: run.runId,
    workflowId: run.workflowId,
    workflowName: run.workflowName,
    workflowVersion: run.workflowVersion,
    turn: request.turn,
    toolUseId: request.toolUseId,
    tool: request.tool,
    args: request.input,
    argsHash: argsHashOf(request.tool, request.input),
    reason: cutText(request.reason, 4000),
    approvers: request.approvers,
    status: 'pending',
    expiresAt: new Date(nowMs + request.timeoutSeconds * 1000).toISOString(),
    createdAt: new Date(nowMs).toISOString(),
    ...(request.step ? { step: request.step } : {}),
  };
}

/** The gate's decision and the request, as the audit chain records them (`actor`: who proposed the call). */
export function approvalRequestedAudit(approval: Approval, actor: 'model' | 'system'): AuditInput[] {
  return [
    {
      type: 'gate_decision',
      actor: 'system',
      data: { toolUseId: approval.toolUseId, tool: approval.tool, decision: 'needs_approval' },
    },
    {
      type: 'approval_requested',
      actor,
      data: {
        approvalId: approval.approvalId,
        tool: approval.tool,
        argsHash: approval.argsHash,
        approvers: approval.approvers,
        expiresAt: approval.expiresAt,
        ...(approval.step ? { stepId: approval.step.stepId, attempt: approval.step.attempt } : {}),
      },
    },
  ];
}

export type ApprovalDecision = NonNullable<Run['approvalDecisions']>[number];

/**
 * `run` with the decisions on `decided` recorded (replacing older ones for the same approvals), for the commit
 * that writes those decisions. Only a turn's approvals: a graph step's has a wait of its own and is read there.
 */
export function withDecisions(run: Run, decided: readonly Approval[]): Run {
  const summaries = decided.flatMap((approval): ApprovalDecision[] =>
    approval.step === undefined && approval.status !== 'pending'
      ? [
          {
            approvalId: approval.approvalId,
            status: approval.status,
            argsHash: approval.argsHash,
            ...(approval.decidedBy ? { decidedBy: approval.decidedBy } : {}),
          },
        ]
      : [],
  );
  if (summaries.length === 0) return run;
  const replaced = new Set(summaries.map((summary) => summary.approvalId));
  const kept = (run.approvalDecisions ?? []).filter((summary) => !replaced.has(summary.approvalId));
  return { ...run, approvalDecisions: [...kept, ...summaries] };
}
