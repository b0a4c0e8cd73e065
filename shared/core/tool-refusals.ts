/**
 * Answers that dispatch nothing: a refusal (a denied, over-limit or no-longer-approved call) is a `refused`
 * ledger row with its model-readable denial, and a call that needs approval gets an approval record. Both
 * are staged for the turn's next write, which always comes before the turn ends. A refusal for the input alone
 * (gate.ts `DenialFault`) differs only in its text, which invites a corrected call.
 */
import type { Approval } from '../schemas/approval.ts';
import { approvalRequestedAudit, newApproval } from './approval-record.ts';
import { isoAt, type RunHandle, type TurnDeps } from './engine.ts';
import { type Denial, denialText } from './gate.ts';
import { argsHashOf, idempotencyKeyFor } from './identity.ts';
import type { ToolOutcome, ToolUseBlock } from './ports.ts';
import type { ToolCallContext } from './tool-calls.ts';
import { textOf } from './transcript.ts';
import { capRefusal, contentHashOf } from './transcript-limits.ts';

export async function refuse(
  h: RunHandle,
  deps: TurnDeps,
  ctx: ToolCallContext,
  use: ToolUseBlock,
  denial: Denial,
  cause = 'gate',
): Promise<ToolOutcome> {
  const { reason } = denial;
  const outcome: ToolOutcome = { content: capRefusal(denialText(denial)), isError: true };
  const argsHash = argsHashOf(use.name, use.input);
  const now = isoAt(deps.clock);
  await h.stage({
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

export async function requestApproval(
  h: RunHandle,
  deps: TurnDeps,
  ctx: ToolCallContext,
  use: ToolUseBlock,
  input: unknown,
  approvers: string[],
  timeoutSeconds: number,
): Promise<Approval> {
  const approval = newApproval(
    h.run,
    {
      toolUseId: use.id,
      turn: ctx.assistant.turn,
      tool: use.name,
      input,
      approvers,
      timeoutSeconds,
      reason: textOf(ctx.assistant),
    },
    deps.clock.nowMs(),
  );
  // Staged: the turn's commit that parks the run on its approvals carries it.
  await h.stage({ approvalCreate: [approval], audit: approvalRequestedAudit(approval, 'model') });
  return approval;
}
