/**
 * Ending a run from outside a turn (MarkFailed, a cancel): one fenced commit that sets the final status and
 * stop reason, answers any open tool calls (closing.ts: the stored result, "outcome unknown" for a call
 * dispatched but never settled, whose pending row is settled so, or "not executed" for one never
 * dispatched) so the transcript stays valid, gives an outstanding reservation back to the day, and records
 * the audit entries. Retries when a concurrent write moved the run; a run that already ended is returned.
 *
 * After the commit the run's final head is anchored into its owner's chain (and the owner's heads signed). By
 * default a failed anchor fails the call: MarkFailed is retried by Step Functions, and its retry finds the run
 * ended and anchors it (the terminal path below). A caller that must go on after the commit (a cancel, which
 * still has an execution to stop) passes `anchorFailed`: the failure is reported to it and the run returned.
 * The head is anchored later by the next ending call on the run (a repeated cancel, the ABORTED execution's
 * event: shared/runs/execution-ended.ts), or, once it lost a round to another run of its owner and registered
 * its head, by that owner's next group commit (shared/store/anchors.ts).
 */
import type { TranscriptMessage } from '../schemas/message.ts';
import { isTerminalRunStatus, type Run, type StopReason } from '../schemas/run.ts';
import { closeOpenCalls } from './closing.ts';
import { isoAt, RunHandle } from './engine.ts';
import type { Clock } from './ports.ts';
import { roundUsd } from './pricing.ts';
import { unsettledAudit, unsettledSpend } from './reservation-parts.ts';
import { LedgerConflictError, RunConflictError } from './store-errors.ts';
import type { AuditInput, RunStore } from './store-port.ts';
import { toolResultContent, toolUsesOf } from './transcript.ts';

export type RunEnding = {
  runId: string;
  status: 'failed' | 'cancelled';
  stopReason: StopReason;
  error?: { name: string; message: string };
  /** Why the run ended, as a clause the model reads in the closing results ("the run was cancelled"). */
  why: string;
  actor: string;
  audit: AuditInput[];
  /** Only end runs this accepts (e.g. the caller's own); others are returned as undefined. */
  accept?: (run: Run) => boolean;
  /**
   * Given, a failed anchor of the ended run (after its commit, or of a run found ended) is reported here and the
   * run returned; absent, the error is thrown (the ending itself stays committed either way).
   */
  anchorFailed?: (run: Run, error: unknown) => void;
  /** Rounds the anchor contends for the owner's chain head (RunStore.anchorRunHead); default: the store's. */
  anchorAttempts?: number;
};

export async function endRun(
  deps: { store: RunStore; clock: Clock },
  ending: RunEnding,
): Promise<Run | undefined> {
  for (let attempt = 1; ; attempt++) {
    const { run, transcript } = await readRunForEnding(deps.store, ending.runId, ending.accept !== undefined);
    if (!run || (ending.accept && !ending.accept(run))) return undefined;
    if (isTerminalRunStatus(run.status)) {
      // Ended before (by its turn, or a retried call): nothing more is written, so anchor its final head.
      await anchorEnded(deps, ending, run);
      return run;
    }
    const messages = transcript ?? (await deps.store.listMessages(run.runId));
    const last = messages.at(-1);
    const open = last?.role === 'assistant' && toolUsesOf(last).length > 0 ? last : undefined;
    // Answered from the ledger: stored results, "outcome unknown" (settled now) for dispatched calls that
    // never settled, "not executed" only for calls that were never dispatched.
    const closing = open
      ? closeOpenCalls(open, await deps.store.listLedger(run.runId), ending.why, isoAt(deps.clock))
      : undefined;
    const unsettled = unsettledSpend(run);
    const handle = new RunHandle(run, deps);
    let ended: Run;
    try {
      ended = await handle.commit({
        ...(unsettled?.daySpend ? { daySpend: unsettled.daySpend } : {}),
        ...(unsettled?.graphSpend ? { graphSpend: unsettled.graphSpend } : {}),
        ...(closing && closing.settle.length > 0 ? { ledgerSettle: closing.settle } : {}),
        ...(open && closing
          ? {
              messages: [
                {
                  schemaVersion: 1 as const,
                  runId: run.runId,
                  seq: messages.length,
                  turn: run.turn,
                  role: 'user' as const,
                  content: toolResultContent(open, closing.outcomes),
                  createdAt: isoAt(deps.clock),
                },
              ],
            }
          : {}),
        next: (current) => ({
          ...current,
          status: ending.status,
          stopReason: ending.stopReason,
          ...(ending.error ? { error: ending.error } : {}),
          endedAt: isoAt(deps.clock),
          lastNext: 'failed',
          pendingApprovalIds: [],
          reservation: undefined,
          // An outstanding reservation may have paid for a call (a crash during it): counted, never free.
          costUsd: roundUsd(current.costUsd + (unsettled?.costUsd ?? 0)),
          messageCount: current.messageCount + (open ? 1 : 0),
        }),
        audit: [
          ...unsettledAudit(run),
          ...ending.audit,
          ...(closing?.audit ?? []),
          {
            type: 'status_changed',
            actor: ending.actor,
            data: { from: run.status, to: ending.status, stopReason: ending.stopReason },
          },
        ],
      });
    } catch (error) {
      // A settle racing this one (the turn recorded a result first) is a conflict like any other: re-read.
      const raced = error instanceof RunConflictError || error instanceof LedgerConflictError;
      if (!raced || attempt >= 5) throw error;
      continue;
    }
    // Committed: from here on nothing re-reads or commits again; an anchor failure is the anchor's alone.
    await anchorEnded(deps, ending, ended);
    return ended;
  }
}

/** Anchors an ended run's head: a failure is thrown, or reported to `ending.anchorFailed` when given. */
async function anchorEnded(
  deps: { store: RunStore; clock: Clock },
  ending: Pick<RunEnding, 'anchorFailed' | 'anchorAttempts'>,
  run: Run,
): Promise<void> {
  try {
    await deps.store.anchorRunHead(
      run,
      isoAt(deps.clock),
      ...(ending.anchorAttempts === undefined ? [] : [{ maxAttempts: ending.anchorAttempts }]),
    );
  } catch (error) {
    if (!ending.anchorFailed) throw error;
    ending.anchorFailed(run, error);
  }
}

/**
 * The run and, where the store reads both in one request (`getRunWithMessages`), its transcript: used only
 * when it holds the run's `messageCount` messages (append-only), i.e. is this revision's; otherwise (a commit
 * landed between the two, or a store without that read) the transcript is read after the run, as before.
 * An ending that must first accept the run (a caller's cancel: its own runs only) reads the run alone: the
 * transcript is read after the check, so another owner's run costs the one request a missing id does, and none
 * of its messages are read.
 */
async function readRunForEnding(
  store: RunStore,
  runId: string,
  checksOwner: boolean,
): Promise<{ run: Run | undefined; transcript?: TranscriptMessage[] }> {
  if (checksOwner || !store.getRunWithMessages) return { run: await store.getRun(runId) };
  const { run, messages } = await store.getRunWithMessages(runId);
  return { run, ...(run && messages.length === run.messageCount ? { transcript: messages } : {}) };
}
