/**
 * One turn of a run (one Lambda invocation), as in DESIGN.md "One turn":
 * 1. load the run, fenced by turn number; 2. effective grant = version allow-set ∩ live policy
 * (turn-context.ts); 3. settle decided approvals; 4. reserve budget; 5. call the model with only the
 * effective tools; 6. the assistant message, usage and cost (model-step.ts); 7. gate and dispatch each
 * tool_use under the ledger; 8. commit the turn (conclude.ts, tool-calls.ts). Every write is a fenced
 * transaction carrying its audit entries; writes of the same moment share one (staged-change.ts).
 */
import type { TranscriptMessage } from '../schemas/message.ts';
import { isTerminalRunStatus } from '../schemas/run.ts';
import { concludeAssistant, endWithOpenCalls, userMessage } from './conclude.ts';
import { RunHandle, type TurnDeps } from './engine.ts';
import { RunNotFoundError, TurnFenceError } from './errors.ts';
import { awaitApprovals, secondsUntilExpiry } from './finish.ts';
import { liveExecutionPart } from './live-execution.ts';
import { runDeadlineMs } from './live-policy.ts';
import { callModel } from './model-step.ts';
import type { TurnInput, TurnOutcome } from './outcome.ts';
import {
  ApprovalAlreadyDecidedError,
  LedgerConflictError,
  RunConflictError,
  WorkflowHeadMovedError,
} from './store-errors.ts';
import { answerToolUses } from './tool-calls.ts';
import { toolResultContent } from './transcript.ts';
import { rebaseOnSideWrites } from './turn-conflict.ts';
import { loadTurnContext, type PrefetchedHead, readTurnStart } from './turn-context.ts';

/**
 * Runs one turn. A write that loses to a side write is re-applied on the fresh run (turn-conflict.ts); one
 * that loses to real progress (the run ended, another invocation committed) re-enters the turn from the
 * store, which reuses the persisted assistant message and ledger rows: a paid model call or a dispatch is
 * never repeated because of a conflict.
 */
export async function runTurn(deps: TurnDeps, input: TurnInput): Promise<TurnOutcome> {
  let readHead = false;
  for (let races = 1; ; ) {
    try {
      return await turnFromStore(deps, input, readHead);
    } catch (error) {
      // The policy a resume assumed did not hold: nothing was written; again, reading the head this time.
      // Not a lost race, so it spends none of the three tries races get.
      if (error instanceof WorkflowHeadMovedError && !readHead) {
        readHead = true;
        continue;
      }
      if (!lostARace(error) || races >= 3) throw error;
      races += 1;
    }
  }
}

/**
 * A write that lost to another writer: the run moved (RunConflictError), a ledger row was settled first
 * (e.g. by a cancel that answered it "outcome unknown"), or an approval was decided first. DynamoDB reports
 * the most specific failed condition, so the last two can stand for a moved run too.
 */
const lostARace = (error: unknown): boolean =>
  error instanceof RunConflictError ||
  error instanceof LedgerConflictError ||
  error instanceof ApprovalAlreadyDecidedError;

async function turnFromStore(deps: TurnDeps, input: TurnInput, readHead: boolean): Promise<TurnOutcome> {
  // The transcript (and, when known, the workflow head) read alongside the run: turn-context.ts.
  const { run, transcript, head } = await readTurnStart(deps, input);
  if (!run) throw new RunNotFoundError(input.runId);
  const h = new RunHandle(run, deps, rebaseOnSideWrites(deps.store));
  return withReadHint(await turnOnRun(deps, input, readHead, h, transcript, head), h);
}

/**
 * A `continue` names what the next turn reads (`ReadHint`, outcome.ts): the run's workflow head and how many
 * messages the run holds as this turn left it, so the next turn, on whichever container, reads the run, the
 * messages it does not hold and the head in one request (turn-context.ts). Not for a delegated job's run (its
 * live policy is its grant, not a head), nor for any other outcome: a parked run's next turn is a resume, which
 * reads no head, and the other outcomes end the execution or continue it in a new one (its input is the
 * pointer).
 */
function withReadHint(outcome: TurnOutcome, h: RunHandle): TurnOutcome {
  const run = h.run;
  if (outcome.next !== 'continue' || run.trigger.type === 'job') return outcome;
  return {
    ...outcome,
    readHint: { owner: run.owner, workflowId: run.workflowId, messageCount: run.messageCount },
  };
}

async function turnOnRun(
  deps: TurnDeps,
  input: TurnInput,
  readHead: boolean,
  h: RunHandle,
  transcript: TranscriptMessage[],
  head: PrefetchedHead | undefined,
): Promise<TurnOutcome> {
  const run = h.run;
  if (isTerminalRunStatus(run.status) || run.turn > input.turn) return committedOutcome(h, deps, input);
  if (run.turn < input.turn) throw new TurnFenceError(run.runId, input.turn, run.turn);
  // A continuation's first turn records it on the run with its first commit (live-execution.ts).
  const live = liveExecutionPart(run, input.attempt);
  if (live) await h.stage(live);

  // Messages are append-only: a transcript of the run's `messageCount` messages is this revision's. Any other
  // count means a commit landed between the two reads, and the transcript is read again after the run.
  // A resume from approvals assumes the live policy instead of reading it (the common case: the run's version
  // is the latest, enabled): its first commit carries that as a condition, and every dispatch and model call
  // of the turn comes after that commit (each is preceded by one). If the head moved, nothing was written and
  // the turn starts again, reading it (runTurn).
  const ctx = await loadTurnContext(
    deps,
    run,
    input,
    transcript.length === run.messageCount ? transcript : undefined,
    run.status === 'awaiting_approval' && !readHead,
    head,
  );
  if (ctx.assumedHead) await h.stage({ liveHead: ctx.assumedHead });
  const { definition } = ctx;
  if (!ctx.enabled)
    return endWithOpenCalls(
      h,
      deps,
      ctx,
      'denied',
      'policy_denied',
      ctx.refusal ?? 'the workflow was disabled or deleted',
    );
  if (deps.clock.nowMs() > runDeadlineMs(run, definition))
    return endWithOpenCalls(h, deps, ctx, 'failed', 'timeout', 'the run timed out');

  const last = ctx.messages.at(-1);
  if (last?.role === 'assistant') {
    if (last.turn === h.run.turn) return concludeAssistant(h, deps, ctx, last);
    // A previous turn's calls were waiting for approval: answer them, then call the model.
    const step = await answerToolUses(h, deps, {
      assistant: last,
      definition,
      grant: ctx.grant,
      ...(ctx.ledger ? { ledger: ctx.ledger } : {}),
    });
    if (step.awaiting.length > 0) return awaitApprovals(h, deps, input, step.awaiting);
    const answer = userMessage(
      h.run.runId,
      ctx.messages.length,
      h.run.turn,
      toolResultContent(last, step.outcomes),
      deps,
    );
    // Staged: the reservation before the model call commits it (one transaction).
    await h.stage({
      messages: [answer],
      next: (current) => ({
        ...current,
        status: 'running',
        messageCount: current.messageCount + 1,
        pendingApprovalIds: [],
      }),
      audit:
        h.run.status !== 'running'
          ? [{ type: 'status_changed', actor: 'system', data: { from: h.run.status, to: 'running' } }]
          : [],
    });
    ctx.messages.push(answer);
  }
  return callModel(h, deps, ctx);
}

/** Answers a retried invocation (or a terminal run) from what is committed, changing nothing. */
async function committedOutcome(h: RunHandle, deps: TurnDeps, input: TurnInput): Promise<TurnOutcome> {
  const run = h.run;
  const pointer = { runId: run.runId, turn: run.turn, segmentStartTurn: input.segmentStartTurn };
  if (run.status === 'done') return { ...pointer, next: 'done' };
  if (isTerminalRunStatus(run.status))
    return { ...pointer, next: 'failed', stopReason: run.stopReason ?? 'error' };
  if (run.status === 'awaiting_approval') {
    const approvals = (
      await Promise.all(run.pendingApprovalIds.map((id) => deps.store.getApproval(id)))
    ).filter((approval) => approval !== undefined);
    return {
      ...pointer,
      next: 'await_approval',
      approvalTimeoutSeconds: approvals.length ? secondsUntilExpiry(approvals, deps.clock.nowMs()) : 1,
      approvalIds: run.pendingApprovalIds,
    };
  }
  return { ...pointer, next: run.lastNext === 'continue_as_new' ? 'continue_as_new' : 'continue' };
}
