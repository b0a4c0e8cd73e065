/**
 * A degraded finish: the model ended its work, but calls it asked for were refused on the way (seed 000: "a denied
 * action degrades the run, it never bypasses"). Such a run ends `denied` rather than a plain `done`, still goes
 * to its destination, and carries what was refused so a person sees it at a glance.
 *
 * One refusal does not count: a denial of the input alone (gate.ts `DenialFault` `input`: a schema mismatch, an
 * inexact number, an input too large for its approval) that a later turn made good by running the same action.
 * Nothing was bypassed or lost there: the model was told to correct its input, did, and the corrected call passed
 * the gate. An input denial never followed by a call of that action that ran still counts, as does every policy
 * denial. Rows written before input denials were told apart end "Do not retry it…" and count, as they did.
 */
import type { LedgerRow } from '../schemas/ledger.ts';
import type { TranscriptMessage } from '../schemas/message.ts';
import type { Run } from '../schemas/run.ts';
import { cutText } from './byte-caps.ts';
import { isInputDenial } from './gate.ts';

/** The most refusals a run record lists (the count covers all). */
export const MAX_LISTED_REFUSALS = 100;

const DENIED_PREFIX = /^Denied: /;

/** The run's refusals from its ledger, or undefined when nothing was refused. */
export function degradedFrom(ledger: readonly LedgerRow[]): Run['degraded'] {
  // The last turn in which each action ran (its row is not `refused`: it passed the gate and was dispatched).
  const lastRan = new Map<string, number>();
  for (const row of ledger)
    if (row.status !== 'refused') lastRan.set(row.tool, Math.max(row.turn, lastRan.get(row.tool) ?? -1));
  const corrected = (row: LedgerRow) =>
    isInputDenial(row.outcome?.content) && (lastRan.get(row.tool) ?? -1) > row.turn;
  const refused = ledger.filter((row) => row.status === 'refused' && !corrected(row));
  if (refused.length === 0) return undefined;
  return {
    count: refused.length,
    refused: refused.slice(0, MAX_LISTED_REFUSALS).map((row) => ({
      tool: row.tool,
      toolUseId: row.toolUseId,
      turn: row.turn,
      // The model-readable denial up to its first sentence: "an approver (…) denied this call", "…expired…".
      reason: cutText(
        (row.outcome?.content ?? 'refused').replace(DENIED_PREFIX, '').split('. This call')[0]!,
        300,
      ),
    })),
  };
}

/**
 * True when a finished run should go to its destination: `done`, or `denied` because it was degraded. An
 * external run goes there only in mode `live` (`shadow` and `report_only` publish nothing, whoever asks:
 * Deliver, MarkFailed, the local stack's leftover delivery, `wf run --wait`).
 */
export function isDeliverable(run: Pick<Run, 'status' | 'degraded' | 'external'>): boolean {
  if (run.external !== undefined && run.external.mode !== 'live') return false;
  return run.status === 'done' || (run.status === 'denied' && run.degraded !== undefined);
}

/**
 * False only when no call of the transcript was answered as an error: every refused ledger row answers its
 * call with an error result, so such a run has no refusal and its ledger need not be read.
 */
export function mayHaveRefusals(transcript: readonly TranscriptMessage[]): boolean {
  return transcript.some((message) =>
    message.content.some((block) => block.type === 'tool_result' && block.is_error === true),
  );
}
