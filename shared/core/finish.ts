/** Committing the end of a turn: continue, wait for approval, or end the run. */
import type { Approval } from '../schemas/approval.ts';
import type { LedgerRow } from '../schemas/ledger.ts';
import type { TranscriptMessage } from '../schemas/message.ts';
import type { Run, RunStatus, StopReason } from '../schemas/run.ts';
import { degradedFrom, mayHaveRefusals } from './degraded.ts';
import { isoAt, type RunHandle, type TurnDeps } from './engine.ts';
import type { TurnInput, TurnOutcome, TurnPointer } from './outcome.ts';
import { outstandingReservationPart } from './reservation-parts.ts';
import { type ChangePart, mergeParts } from './staged-change.ts';
import { isSpendCeilingRefusal } from './store-errors.ts';
import type { AuditInput } from './store-port.ts';
import { capResultText } from './transcript-limits.ts';

const pointerOf = (h: RunHandle, input: TurnInput): TurnPointer => ({
  runId: h.run.runId,
  turn: h.run.turn,
  segmentStartTurn: input.segmentStartTurn,
});

const statusChange = (from: RunStatus, to: RunStatus, data: Record<string, unknown> = {}): AuditInput[] =>
  from === to ? [] : [{ type: 'status_changed', actor: 'system', data: { from, to, ...data } }];

/**
 * Commits a completed turn (its messages) and routes to the next turn, or to a fresh execution. `reserveNext`
 * gives the next turn's reservation, made in the same transaction (attempt.ts); not for a fresh execution,
 * whose first attempt could not tell it from one a crashed invocation used. A day ceiling that refuses it
 * leaves the turn committed without it: the next turn reserves (and waits, or stops) as it would have.
 */
export async function commitTurn(
  h: RunHandle,
  deps: TurnDeps,
  input: TurnInput,
  messages: TranscriptMessage[],
  reserveNext?: () => ChangePart | undefined,
): Promise<TurnOutcome> {
  const nextTurn = h.run.turn + 1;
  const fresh = nextTurn - input.segmentStartTurn >= deps.config.turnsPerExecution;
  const lastNext = fresh ? 'continue_as_new' : 'continue';
  const change: ChangePart = {
    messages,
    next: (run) => ({
      ...run,
      status: 'running',
      turn: nextTurn,
      lastNext,
      messageCount: run.messageCount + messages.length,
      pendingApprovalIds: [],
    }),
    audit: [
      ...statusChange(h.run.status, 'running'),
      { type: 'turn_committed', actor: 'system', data: { turn: h.run.turn, next: lastNext } },
    ],
  };
  const ahead = fresh ? undefined : reserveNext?.();
  try {
    await h.commit(ahead ? mergeParts(change, ahead) : change);
  } catch (error) {
    if (!ahead || !isSpendCeilingRefusal(error)) throw error;
    await h.commit(change);
  }
  return { ...pointerOf(h, input), next: lastNext };
}

/** Seconds until the earliest pending approval expires (at least 1). */
export function secondsUntilExpiry(approvals: Approval[], nowMs: number): number {
  const earliest = Math.min(...approvals.map((approval) => Date.parse(approval.expiresAt)));
  return Math.max(1, Math.ceil((earliest - nowMs) / 1000));
}

/** Parks the run on its pending approvals; a re-request while already waiting changes nothing. */
export async function awaitApprovals(
  h: RunHandle,
  deps: TurnDeps,
  input: TurnInput,
  awaiting: Approval[],
  /** Every call of the message is held for approval: none has a ledger row (schemas/run.ts). */
  unrecorded = false,
): Promise<TurnOutcome> {
  if (h.run.status !== 'awaiting_approval') {
    await h.commit({
      next: (run) => ({
        ...run,
        status: 'awaiting_approval',
        turn: run.turn + 1,
        lastNext: 'await_approval',
        pendingApprovalIds: awaiting.map((approval) => approval.approvalId),
        awaitingUnrecorded: unrecorded ? true : undefined,
      }),
      audit: [
        ...statusChange(h.run.status, 'awaiting_approval', {
          approvals: awaiting.map((approval) => approval.approvalId),
        }),
        { type: 'turn_committed', actor: 'system', data: { turn: h.run.turn, next: 'await_approval' } },
      ],
    });
  } else {
    // Already waiting (a resume found approvals still pending): what the turn staged is still written.
    await h.flush();
  }
  return {
    ...pointerOf(h, input),
    next: 'await_approval',
    approvalTimeoutSeconds: secondsUntilExpiry(awaiting, deps.clock.nowMs()),
    approvalIds: awaiting.map((approval) => approval.approvalId),
  };
}

export type Ending = {
  status: 'done' | 'failed' | 'denied';
  stopReason: StopReason;
  resultText?: string;
  error?: { name: string; message: string };
  /** A user message answering open tool_use blocks, so the transcript stays valid. */
  closing?: TranscriptMessage;
  /** Pending ledger rows the closing answers as outcome unknown, settled in the same commit (closing.ts). */
  ledgerSettle?: LedgerRow[];
  audit?: AuditInput[];
  /**
   * The run's transcript, when the caller has it: a transcript without an error result has no refused
   * call behind it (every refusal answers its call as an error), so a `done` run's ledger is not read.
   */
  transcript?: readonly TranscriptMessage[];
};

/** Ends the run with a status and stop reason, recorded together. */
export async function finishRun(
  h: RunHandle,
  deps: TurnDeps,
  input: TurnInput,
  requested: Ending,
): Promise<TurnOutcome> {
  // A finished run with refused calls is degraded: `denied`, still delivered (next stays `done`).
  const degraded = requested.status === 'done' ? await refusalsOf(h, deps, requested.transcript) : undefined;
  const ending: Ending = degraded ? { ...requested, status: 'denied' } : requested;
  const delivers = requested.status === 'done';
  // An outstanding reservation may have paid for a call (a crash during it): counted, never free, unless
  // it was made ahead and this invocation knows no call used it.
  const outstanding = outstandingReservationPart(h.run, input.attempt);
  const end: ChangePart = {
    ...(ending.closing ? { messages: [ending.closing] } : {}),
    ...(ending.ledgerSettle?.length ? { ledgerSettle: ending.ledgerSettle } : {}),
    next: (run) => ({
      ...run,
      status: ending.status,
      stopReason: ending.stopReason,
      turn: run.turn + 1,
      lastNext: delivers ? 'done' : 'failed',
      endedAt: isoAt(deps.clock),
      pendingApprovalIds: [],
      messageCount: run.messageCount + (ending.closing ? 1 : 0),
      // Capped: the run item is rewritten on every commit and must stay under 400 KB.
      ...(ending.resultText !== undefined ? { result: { text: capResultText(ending.resultText) } } : {}),
      ...(ending.error ? { error: ending.error } : {}),
      ...(degraded ? { degraded } : {}),
    }),
    audit: [
      ...(ending.audit ?? []),
      ...statusChange(h.run.status, ending.status, {
        stopReason: ending.stopReason,
        ...(degraded ? { degraded: true, refused: degraded.count } : {}),
      }),
    ],
  };
  await h.commit(mergeParts(outstanding, end));
  return delivers
    ? { ...pointerOf(h, input), next: 'done' }
    : { ...pointerOf(h, input), next: 'failed', stopReason: ending.stopReason };
}

/** The run's refusals: stored rows and the ones this turn staged; no read when the transcript rules them out. */
async function refusalsOf(
  h: RunHandle,
  deps: TurnDeps,
  transcript: readonly TranscriptMessage[] | undefined,
): Promise<Run['degraded']> {
  const staged = h.staged.ledgerCreate ?? [];
  const stored = transcript && !mayHaveRefusals(transcript) ? [] : await deps.store.listLedger(h.run.runId);
  return degradedFrom([...stored, ...staged]);
}
