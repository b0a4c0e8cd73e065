/**
 * Answers the tool_use blocks of one assistant message, under the ledger protocol:
 * - a settled row is reused, never re-run;
 * - a `pending` non-idempotent row (a crash after dispatch) is settled "outcome unknown", never repeated;
 * - a `pending` idempotent row is run again with the same Idempotency-Key;
 * - decided approvals are honoured (approved: run the exact approved arguments; denied/expired: refuse);
 * - everything else is gated now: allow → pending row → dispatch → settle; deny → refusal; needs_approval
 *   → an approval record, and the turn waits.
 */

import type { Approval } from '../schemas/approval.ts';
import type { LedgerRow } from '../schemas/ledger.ts';
import type { TranscriptMessage } from '../schemas/message.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import type { Action } from './actions.ts';
import { isoAt, type RunHandle, type TurnDeps } from './engine.ts';
import { denialText, type EffectiveGrant, evaluateGate } from './gate.ts';
import { approvalIdFor, argsHashOf, idempotencyKeyFor } from './identity.ts';
import { valueBytes } from './item-size.ts';
import type { ToolOutcome, ToolUseBlock } from './ports.ts';
import { textOf, toolUsesOf } from './transcript.ts';
import { capRefusal, capToolResult, contentHashOf, MAX_APPROVAL_ARGS_BYTES } from './transcript-limits.ts';
import { settleAudit, settledRow, thrownOutcome, UNKNOWN_AFTER_STOP } from './uncertain.ts';

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
  const stored = ctx.fresh ? [] : await deps.store.listLedger(h.run.runId);
  const ledger = new Map(stored.map((row) => [row.toolUseId, row]));
  const outcomes = new Map<string, ToolOutcome>();
  const awaiting: Approval[] = [];
  const uses = toolUsesOf(ctx.assistant);
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
    const approval = ctx.fresh ? undefined : await deps.store.getApproval(approvalIdFor(h.run.runId, use.id));
    if (approval) {
      const result = await honourApproval(h, deps, ctx, use, approval);
      if (result === 'waiting') awaiting.push(approval);
      else outcomes.set(use.id, result);
      continue;
    }
    if (index >= limit) {
      outcomes.set(
        use.id,
        await refuse(h, deps, ctx, use, `the per-turn limit of ${limit} tool calls was reached`),
      );
      continue;
    }
    const gate = evaluateGate(use, ctx.grant, deps.actions, ctx.definition);
    if (gate.decision === 'deny') {
      outcomes.set(use.id, await refuse(h, deps, ctx, use, gate.reason));
    } else if (gate.decision === 'allow') {
      outcomes.set(use.id, await dispatch(h, deps, ctx, use, gate.action, gate.input, 'allow'));
    } else if (valueBytes(gate.input) > MAX_APPROVAL_ARGS_BYTES) {
      // The approval item holds the exact arguments and must stay under DynamoDB's 400 KB item limit.
      outcomes.set(
        use.id,
        await refuse(
          h,
          deps,
          ctx,
          use,
          `the arguments are over ${MAX_APPROVAL_ARGS_BYTES} bytes, too large to hold for approval`,
        ),
      );
    } else {
      awaiting.push(
        await requestApproval(h, deps, ctx, use, gate.input, gate.approvers, gate.timeoutSeconds),
      );
    }
  }
  return { outcomes, awaiting };
}

async function resumePending(
  h: RunHandle,
  deps: TurnDeps,
  ctx: ToolCallContext,
  use: ToolUseBlock,
  row: LedgerRow,
): Promise<ToolOutcome> {
  const action = deps.actions.resolve(row.tool, ctx.definition);
  if (row.idempotent && action) {
    const approval = await deps.store.getApproval(approvalIdFor(h.run.runId, use.id));
    const input = approval?.status === 'approved' ? approval.args : action.input.parse(use.input);
    // What is staged (earlier calls' settles) is committed before this call runs again.
    await h.flush();
    return runAndSettle(h, deps, ctx, use, action, input, row, true);
  }
  const outcome = UNKNOWN_AFTER_STOP;
  h.stage({
    ledgerSettle: [settledRow(row, outcome, isoAt(deps.clock))],
    audit: [settleAudit(use, row.tool, outcome)],
  });
  return outcome;
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
    h.stage({
      approvalUpdate: [{ approval: expired, expectedStatus: 'pending' }],
      audit: [
        {
          type: 'approval_expired',
          actor: 'system',
          data: { approvalId: approval.approvalId, tool: approval.tool },
        },
      ],
    });
    return refuse(h, deps, ctx, use, NO_DECISION, 'expired');
  }
  if (approval.status === 'denied') {
    return refuse(
      h,
      deps,
      ctx,
      use,
      `an approver (${approval.decidedBy ?? 'unknown'}) denied this call`,
      'approver_denied',
    );
  }
  if (approval.status === 'expired') {
    return refuse(h, deps, ctx, use, NO_DECISION, 'expired');
  }
  if (approval.status === 'undeliverable') {
    return refuse(h, deps, ctx, use, NO_APPROVER_REACHED, 'undeliverable');
  }
  // Approved: run exactly what was approved, if it is still what the model asked for and still granted.
  if (approval.tool !== use.name || argsHashOf(use.name, approval.args) !== approval.argsHash) {
    return refuse(
      h,
      deps,
      ctx,
      use,
      'the approved arguments do not match the requested call',
      'args_mismatch',
    );
  }
  const gate = evaluateGate(
    { name: use.name, input: approval.args },
    ctx.grant,
    deps.actions,
    ctx.definition,
  );
  if (gate.decision === 'deny') return refuse(h, deps, ctx, use, gate.reason);
  return dispatch(h, deps, ctx, use, gate.action, gate.input, 'approved');
}

async function dispatch(
  h: RunHandle,
  deps: TurnDeps,
  ctx: ToolCallContext,
  use: ToolUseBlock,
  action: Action,
  input: unknown,
  via: 'allow' | 'approved',
): Promise<ToolOutcome> {
  const turn = ctx.assistant.turn;
  const row: LedgerRow = {
    schemaVersion: 1,
    runId: h.run.runId,
    toolUseId: use.id,
    turn,
    tool: action.name,
    argsHash: argsHashOf(action.name, input),
    idempotent: action.idempotent,
    idempotencyKey: idempotencyKeyFor(h.run.runId, turn, use.id),
    status: 'pending',
    attempts: 1,
    createdAt: isoAt(deps.clock),
  };
  // Pending before dispatch: this commit also carries what is staged (the assistant message that asked for
  // the call, earlier calls' settles, refusals), so the row is durable before the call starts.
  await h.commit({
    ledgerCreate: [row],
    audit: [
      ...(via === 'allow'
        ? [
            {
              type: 'gate_decision' as const,
              actor: 'system',
              data: { toolUseId: use.id, tool: use.name, decision: 'allow' },
            },
          ]
        : []),
      {
        type: 'dispatch',
        actor: 'system',
        data: {
          toolUseId: use.id,
          tool: action.name,
          argsHash: row.argsHash,
          idempotencyKey: row.idempotencyKey,
          via,
        },
      },
    ],
  });
  return runAndSettle(h, deps, ctx, use, action, input, row, false);
}

async function runAndSettle(
  h: RunHandle,
  deps: TurnDeps,
  _ctx: ToolCallContext,
  use: ToolUseBlock,
  action: Action,
  input: unknown,
  row: LedgerRow,
  rerun: boolean,
): Promise<ToolOutcome> {
  let outcome: ToolOutcome;
  try {
    outcome = await action.run(input, {
      idempotencyKey: row.idempotencyKey,
      egress: deps.egress,
      secrets: deps.secrets,
      clock: deps.clock,
      scope: { runId: h.run.runId, owner: h.run.owner, workflowId: h.run.workflowId },
    });
  } catch (error) {
    outcome = thrownOutcome(error);
  }
  // Cut by UTF-8 bytes, the unit DynamoDB counts: see transcript-limits.ts. The unknown marker is kept.
  outcome = { ...outcome, content: capToolResult(deps.secrets.redact(outcome.content)) };
  // Staged: the next dispatch's pending row or the turn's commit carries the settle (one transaction).
  h.stage({
    ledgerSettle: [settledRow(row, outcome, isoAt(deps.clock))],
    audit: [settleAudit(use, action.name, outcome, { rerun })],
  });
  return outcome;
}

async function refuse(
  h: RunHandle,
  deps: TurnDeps,
  ctx: ToolCallContext,
  use: ToolUseBlock,
  reason: string,
  cause = 'gate',
): Promise<ToolOutcome> {
  const outcome: ToolOutcome = { content: capRefusal(denialText(reason)), isError: true };
  const argsHash = argsHashOf(use.name, use.input);
  const now = isoAt(deps.clock);
  h.stage({
    ledgerCreate: [
      {
        schemaVersion: 1,
        runId: h.run.runId,
        toolUseId: use.id,
        turn: ctx.assistant.turn,
        tool: use.name,
        argsHash,
        idempotent: false,
        idempotencyKey: idempotencyKeyFor(h.run.runId, ctx.assistant.turn, use.id),
        status: 'refused',
        attempts: 0,
        outcome,
        createdAt: now,
        settledAt: now,
      },
    ],
    audit: [
      ...(cause === 'gate'
        ? [
            {
              type: 'gate_decision' as const,
              actor: 'system',
              data: { toolUseId: use.id, tool: use.name, decision: 'deny' },
            },
          ]
        : []),
      {
        type: 'denial',
        actor: 'system',
        data: {
          toolUseId: use.id,
          tool: use.name,
          cause,
          reason: capRefusal(reason),
          argsHash,
          contentHash: contentHashOf(outcome.content),
        },
      },
    ],
  });
  return outcome;
}

async function requestApproval(
  h: RunHandle,
  deps: TurnDeps,
  ctx: ToolCallContext,
  use: ToolUseBlock,
  input: unknown,
  approvers: string[],
  timeoutSeconds: number,
): Promise<Approval> {
  const run = h.run;
  const now = deps.clock.nowMs();
  const approval: Approval = {
    schemaVersion: 1,
    approvalId: approvalIdFor(run.runId, use.id),
    owner: run.owner,
    runId: run.runId,
    workflowId: run.workflowId,
    workflowName: run.workflowName,
    workflowVersion: run.workflowVersion,
    turn: ctx.assistant.turn,
    toolUseId: use.id,
    tool: use.name,
    args: input,
    argsHash: argsHashOf(use.name, input),
    reason: textOf(ctx.assistant).slice(0, 4000),
    approvers,
    status: 'pending',
    expiresAt: new Date(now + timeoutSeconds * 1000).toISOString(),
    createdAt: new Date(now).toISOString(),
  };
  // Staged: the turn's commit that parks the run on its approvals carries it.
  h.stage({
    approvalCreate: [approval],
    audit: [
      {
        type: 'gate_decision',
        actor: 'system',
        data: { toolUseId: use.id, tool: use.name, decision: 'needs_approval' },
      },
      {
        type: 'approval_requested',
        actor: 'model',
        data: {
          approvalId: approval.approvalId,
          tool: use.name,
          argsHash: approval.argsHash,
          approvers,
          expiresAt: approval.expiresAt,
        },
      },
    ],
  });
  return approval;
}
