/**
 * Running an allowed call under the ledger: the row is durably `pending` before the dispatch starts (its
 * commit also carries what the turn staged), the outcome is redacted of every credential of the workflow
 * (redacted-dispatch.ts) and capped, and the settle is staged
 * for the turn's next write (the next call's pending row, or the turn's commit). A settle happens once:
 * the store refuses to settle a row that is no longer `pending`.
 */
import type { LedgerRow } from '../schemas/ledger.ts';
import type { Action } from './actions.ts';
import { isoAt, type RunHandle, type TurnDeps } from './engine.ts';
import { approvalIdFor, argsHashOf, idempotencyKeyFor } from './identity.ts';
import { inexactNumber } from './inexact-number.ts';
import type { ToolOutcome, ToolUseBlock } from './ports.ts';
import { runRedacted } from './redacted-dispatch.ts';
import type { ToolCallContext } from './tool-calls.ts';
import { settleAudit, settledRow, UNKNOWN_AFTER_STOP } from './uncertain.ts';

export async function resumePending(
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
    // Sent again only as the gate would allow it now: a row written before the gate denied numbers past 2^53
    // (inexact-number.ts) holds one rounded, which is never sent again; its outcome stays unknown.
    if (inexactNumber(input) === undefined) {
      // What is staged (earlier calls' settles) is committed before this call runs again.
      await h.flush();
      return runAndSettle(h, deps, ctx, use, action, input, row, true);
    }
  }
  const outcome = UNKNOWN_AFTER_STOP;
  await h.stage({
    ledgerSettle: [settledRow(row, outcome, isoAt(deps.clock))],
    audit: [settleAudit(use, row.tool, outcome)],
  });
  return outcome;
}

export async function dispatch(
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
  ctx: ToolCallContext,
  use: ToolUseBlock,
  action: Action,
  input: unknown,
  row: LedgerRow,
  rerun: boolean,
): Promise<ToolOutcome> {
  const scope = { credRefs: ctx.definition.credRefs, secrets: deps.secrets, owner: h.run.owner };
  const outcome = await runRedacted(scope, rerun, () =>
    action.run(input, {
      idempotencyKey: row.idempotencyKey,
      egress: deps.egress,
      secrets: deps.secrets,
      clock: deps.clock,
      scope: { runId: h.run.runId, owner: h.run.owner, workflowId: h.run.workflowId },
    }),
  );
  // Staged: the next dispatch's pending row or the turn's commit carries the settle (one transaction).
  await h.stage({
    ledgerSettle: [settledRow(row, outcome, isoAt(deps.clock))],
    audit: [settleAudit(use, action.name, outcome, { rerun })],
  });
  return outcome;
}
