/**
 * Answers that dispatch nothing: a refusal (a denied, over-limit or no-longer-approved call) is a `refused`
 * ledger row with its model-readable denial, and a call that needs approval gets an approval record. Both
 * are staged for the turn's next write, which always comes before the turn ends.
 */
import type { Approval } from '../schemas/approval.ts';
import { isoAt, type RunHandle, type TurnDeps } from './engine.ts';
import { denialText } from './gate.ts';
import { approvalIdFor, argsHashOf, idempotencyKeyFor } from './identity.ts';
import type { ToolOutcome, ToolUseBlock } from './ports.ts';
import type { ToolCallContext } from './tool-calls.ts';
import { textOf } from './transcript.ts';
import { capRefusal, contentHashOf } from './transcript-limits.ts';

export async function refuse(
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
  await h.stage({
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
