/**
 * Answers the tool_use blocks of one assistant message, under the ledger protocol:
 * - a settled row is reused, never re-run;
 * - a `pending` non-idempotent row (a crash after dispatch) is settled "outcome unknown", never repeated;
 * - a `pending` idempotent row is run again with the same Idempotency-Key;
 * - decided approvals are honoured (approved: run the exact approved arguments; denied/expired: refuse);
 * - everything else is gated now: allow → pending row → dispatch → settle; deny → refusal; needs_approval
 *   → an approval record, and the turn waits.
 * Dispatch and settle: tool-dispatch.ts; refusals and approval requests: tool-refusals.ts.
 */

import type { Approval } from '../schemas/approval.ts';
import type { LedgerRow } from '../schemas/ledger.ts';
import type { TranscriptMessage } from '../schemas/message.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import type { ApprovalDecision } from './approval-record.ts';
import { isoAt, type RunHandle, type TurnDeps } from './engine.ts';
import { type EffectiveGrant, evaluateGate, policyDenial } from './gate.ts';
import { approvalIdFor, argsHashOf } from './identity.ts';
import type { ToolOutcome, ToolUseBlock } from './ports.ts';
import { dispatch, resumePending } from './tool-dispatch.ts';
import { refuse, requestApproval } from './tool-refusals.ts';
import { toolUsesOf } from './transcript.ts';

export type ToolCallContext = {
  assistant: TranscriptMessage;
  definition: WorkflowDefinition;
  grant: EffectiveGrant;
  /**
   * The assistant message came from this invocation's model call and is not stored yet: none of its calls
   * can have a ledger row or an approval, so neither is read. Safe without the read: every row and approval
   * is created conditionally (`attribute_not_exists`), so a concurrent invocation's rows fail our commit.
   */
  fresh?: boolean;
  /** The run's ledger when the turn already read it (a resume from approvals); otherwise read here. */
  ledger?: LedgerRow[];
};

export type ToolCallResult = { outcomes: Map<string, ToolOutcome>; awaiting: Approval[] };

/** What the model is told when an approval expired: fail closed, and say why. */
const NO_DECISION = 'no human decided before the approval timed out, so it counts as denied';
/** What the model is told when no approver could be sent the request: fail closed at once. */
const NO_APPROVER_REACHED =
  'no approver could be reached to decide this call (none is subscribed to approval notices), so it counts as denied';

export async function answerToolUses(
  h: RunHandle,
  deps: TurnDeps,
  ctx: ToolCallContext,
): Promise<ToolCallResult> {
  const stored = ctx.fresh ? [] : (ctx.ledger ?? (await deps.store.listLedger(h.run.runId)));
  const ledger = new Map(stored.map((row) => [row.toolUseId, row]));
  const outcomes = new Map<string, ToolOutcome>();
  const awaiting: Approval[] = [];
  const uses = toolUsesOf(ctx.assistant);
  // Read before anything is committed: a commit that ends the wait drops them from the run.
  const decisions = new Map((h.run.approvalDecisions ?? []).map((d) => [d.approvalId, d]));
  const limit = ctx.definition.budget.maxToolCallsPerTurn;
  for (const [index, use] of uses.entries()) {
    const row = ledger.get(use.id);
    if (row && row.status !== 'pending') {
      outcomes.set(use.id, row.outcome ?? { content: 'No result was recorded.', isError: true });
      continue;
    }
    if (row) {
      outcomes.set(use.id, await resumePending(h, deps, ctx, use, row));
      continue;
    }
    // A decision recorded on the run (approval-record.ts) answers the call without reading its approval.
    const decided = decisions.get(approvalIdFor(h.run.runId, use.id));
    const answered = decided ? await honourDecision(h, deps, ctx, use, decided) : undefined;
    if (answered) {
      outcomes.set(use.id, answered);
      continue;
    }
    const approval = ctx.fresh ? undefined : await deps.store.getApproval(approvalIdFor(h.run.runId, use.id));
    if (approval) {
      const result = await honourApproval(h, deps, ctx, use, approval);
      if (result === 'waiting') awaiting.push(approval);
      else outcomes.set(use.id, result);
      continue;
    }
    if (index >= limit) {
      const overLimit = policyDenial(`the per-turn limit of ${limit} tool calls was reached`);
      outcomes.set(use.id, await refuse(h, deps, ctx, use, overLimit));
      continue;
    }
    const gate = evaluateGate(use, ctx.grant, deps.actions, ctx.definition);
    if (gate.decision === 'deny') {
      outcomes.set(use.id, await refuse(h, deps, ctx, use, gate));
    } else if (gate.decision === 'allow') {
      outcomes.set(use.id, await dispatch(h, deps, ctx, use, gate.action, gate.input, 'allow'));
    } else {
      awaiting.push(
        await requestApproval(h, deps, ctx, use, gate.input, gate.approvers, gate.timeoutSeconds),
      );
    }
  }
  return { outcomes, awaiting };
}

async function honourApproval(
  h: RunHandle,
  deps: TurnDeps,
  ctx: ToolCallContext,
  use: ToolUseBlock,
  approval: Approval,
): Promise<ToolOutcome | 'waiting'> {
  if (approval.status === 'pending') {
    if (Date.parse(approval.expiresAt) > deps.clock.nowMs()) return 'waiting';
    const expired: Approval = { ...approval, status: 'expired', decidedAt: isoAt(deps.clock) };
    await h.stage({
      approvalUpdate: [{ approval: expired, expectedStatus: 'pending' }],
      audit: [
        {
          type: 'approval_expired',
          actor: 'system',
          data: { approvalId: approval.approvalId, tool: approval.tool },
        },
      ],
    });
    return refuse(h, deps, ctx, use, policyDenial(NO_DECISION), 'expired');
  }
  if (approval.status !== 'approved')
    return refuseUndecided(h, deps, ctx, use, approval.status, approval.decidedBy);
  // Approved: run exactly what was approved, if it is still what the model asked for and still granted.
  if (approval.tool !== use.name || argsHashOf(use.name, approval.args) !== approval.argsHash) {
    return refuse(
      h,
      deps,
      ctx,
      use,
      policyDenial('the approved arguments do not match the requested call'),
      'args_mismatch',
    );
  }
  const gate = evaluateGate(
    { name: use.name, input: approval.args },
    ctx.grant,
    deps.actions,
    ctx.definition,
  );
  if (gate.decision === 'deny') return refuse(h, deps, ctx, use, gate);
  return dispatch(h, deps, ctx, use, gate.action, gate.input, 'approved');
}

/** The refusal of a call whose approval ended without approving it: fail closed, and say why. */
function refuseUndecided(
  h: RunHandle,
  deps: TurnDeps,
  ctx: ToolCallContext,
  use: ToolUseBlock,
  status: 'denied' | 'expired' | 'undeliverable',
  decidedBy: string | undefined,
): Promise<ToolOutcome> {
  if (status === 'denied') {
    const by = decidedBy ?? 'unknown';
    return refuse(h, deps, ctx, use, policyDenial(`an approver (${by}) denied this call`), 'approver_denied');
  }
  if (status === 'undeliverable') {
    return refuse(h, deps, ctx, use, policyDenial(NO_APPROVER_REACHED), 'undeliverable');
  }
  return refuse(h, deps, ctx, use, policyDenial(NO_DECISION), 'expired');
}

/**
 * A call answered from the decision recorded on the run, which was read (strongly consistent) with the run
 * and written in the same transaction as the approval's decision. Sound without reading the approval: every
 * write of an approval is a commit of its run (approval-ops.ts, undeliverable.ts, this file), and every commit
 * here is conditional on the revision read, so a change since fails the commit that would dispatch. Approved:
 * the call as the model asked it is gated again on the live grant and its arguments hashed again; they must
 * be the ones approved. Undefined (read the approval) when they are not: the record decides, as before.
 */
async function honourDecision(
  h: RunHandle,
  deps: TurnDeps,
  ctx: ToolCallContext,
  use: ToolUseBlock,
  decided: ApprovalDecision,
): Promise<ToolOutcome | undefined> {
  if (decided.status !== 'approved')
    return refuseUndecided(h, deps, ctx, use, decided.status, decided.decidedBy);
  const gate = evaluateGate(use, ctx.grant, deps.actions, ctx.definition);
  if (gate.decision === 'deny') return refuse(h, deps, ctx, use, gate);
  if (argsHashOf(use.name, gate.input) !== decided.argsHash) return undefined;
  return dispatch(h, deps, ctx, use, gate.action, gate.input, 'approved');
}
