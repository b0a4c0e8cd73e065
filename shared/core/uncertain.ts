/**
 * Outcome classes of a tool call (docs/actions.md "Outcome classes"): completed, failed (it never took
 * effect, e.g. never left), refused (never dispatched), and *outcome unknown*: dispatched and possibly acted
 * on, with no answer to show for it. An unknown outcome is never reported as "not executed" or "not
 * completed": the model is told it may have happened and must check before repeating it, and the ledger
 * row settles `failed` with the `outcomeUnknown` marker.
 */
import type { LedgerRow } from '../schemas/ledger.ts';
import type { ToolOutcome, ToolUseBlock } from './ports.ts';
import type { AuditInput } from './store-port.ts';
import { contentHashOf } from './transcript-limits.ts';

/** The model-readable outcome of a call that may have taken effect; `what` says what happened to it. */
export function unknownOutcome(what: string): ToolOutcome {
  return {
    content:
      `Outcome unknown: ${what}. It may have taken effect. ` +
      'It was NOT repeated, because repeating it could duplicate a side effect. Check its effect before trying again.',
    isError: true,
    outcomeUnknown: true,
  };
}

/** A pending non-idempotent row found on resume: the runtime stopped after dispatching it. */
export const UNKNOWN_AFTER_STOP = unknownOutcome(
  'the runtime stopped after dispatching this call and cannot prove whether it took effect',
);

/** A call that was dispatched but never settled when the run ended (cancel, timeout, failure). */
export const unknownAtEnd = (why: string): ToolOutcome =>
  unknownOutcome(`this call was dispatched, but ${why} before its result was recorded`);

/**
 * What an action threw, as a tool result. An error that says its request was sent with an unsafe method
 * (the egress guard's `delivery`, read structurally: the core does not import the guard) is outcome
 * unknown; anything else is an ordinary failure.
 */
export function thrownOutcome(error: unknown): ToolOutcome {
  const name = (error as Error)?.name ?? 'Error';
  const message = (error as Error)?.message ?? String(error);
  const delivery = (error as { delivery?: { sent?: unknown; method?: unknown } } | null)?.delivery;
  const method = typeof delivery?.method === 'string' ? delivery.method.toUpperCase() : 'POST';
  if (delivery?.sent === true && !['GET', 'HEAD', 'OPTIONS'].includes(method)) {
    return unknownOutcome(
      `the ${method} request was sent, then failed before a complete answer came back (${name}: ${message})`,
    );
  }
  return { content: `The action failed (${name}): ${message}`, isError: true };
}

/** The ledger settlement of `row` with `outcome`: `completed`, or `failed` (with the unknown marker when so). */
export function settledRow(row: LedgerRow, outcome: ToolOutcome, at: string): LedgerRow {
  return {
    ...row,
    status: outcome.isError ? 'failed' : 'completed',
    outcome,
    ...(outcome.outcomeUnknown ? { outcomeUnknown: true as const } : {}),
    settledAt: at,
  };
}

/** The `settle` audit entry of a settlement. */
export function settleAudit(
  use: Pick<ToolUseBlock, 'id'>,
  tool: string,
  outcome: ToolOutcome,
  extra: Record<string, unknown> = {},
): AuditInput {
  return {
    type: 'settle',
    actor: 'system',
    data: {
      toolUseId: use.id,
      tool,
      status: outcome.isError ? 'failed' : 'completed',
      ...(outcome.outcomeUnknown ? { outcomeUnknown: true } : {}),
      contentHash: contentHashOf(outcome.content),
      ...extra,
    },
  };
}
