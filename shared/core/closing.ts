/**
 * Closing a run's open tool calls when it ends without finishing its turn (a cancel, MarkFailed, a run
 * timeout, a disabled workflow). Each call is answered honestly from the ledger:
 * - settled (completed, failed, refused): its stored result;
 * - `pending` (dispatched, never settled): outcome unknown, and the row is settled so in the same commit;
 * - no row (never dispatched): "Not executed".
 * Never "Not executed" for a call the receiver may have got.
 */
import type { LedgerRow } from '../schemas/ledger.ts';
import type { ToolOutcome } from './ports.ts';
import type { AuditInput } from './store-port.ts';
import { toolUsesOf } from './transcript.ts';
import { settleAudit, settledRow, unknownAtEnd } from './uncertain.ts';

export type ClosingPlan = {
  /** The answer to every tool_use of the open assistant message. */
  outcomes: Map<string, ToolOutcome>;
  /** Pending rows settled as outcome unknown (commit them with the closing message). */
  settle: LedgerRow[];
  audit: AuditInput[];
};

/** `why` reads as a clause: "the run was cancelled", "the run timed out". */
export function closeOpenCalls(
  open: Parameters<typeof toolUsesOf>[0],
  ledger: readonly LedgerRow[],
  why: string,
  at: string,
): ClosingPlan {
  const rows = new Map(ledger.map((row) => [row.toolUseId, row]));
  const plan: ClosingPlan = { outcomes: new Map(), settle: [], audit: [] };
  for (const use of toolUsesOf(open)) {
    const row = rows.get(use.id);
    if (!row) {
      plan.outcomes.set(use.id, { content: `Not executed: ${why}.`, isError: true });
    } else if (row.status === 'pending') {
      const outcome = unknownAtEnd(why);
      plan.outcomes.set(use.id, outcome);
      plan.settle.push(settledRow(row, outcome, at));
      plan.audit.push(settleAudit(use, row.tool, outcome, { runEnded: true }));
    } else {
      plan.outcomes.set(use.id, row.outcome ?? { content: 'No result was recorded.', isError: true });
    }
  }
  return plan;
}
