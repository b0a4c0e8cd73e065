/**
 * How a turn ends once the model has answered (DESIGN.md "One turn", steps 7-8): the assistant message's
 * calls are answered under the ledger and the turn is committed, or the run waits for approvals, or ends.
 */
import type { TranscriptMessage } from '../schemas/message.ts';
import { closeOpenCalls } from './closing.ts';
import { isoAt, type RunHandle, type TurnDeps } from './engine.ts';
import { awaitApprovals, commitTurn, finishRun } from './finish.ts';
import { nextTurnReservation } from './model-request.ts';
import type { TurnOutcome } from './outcome.ts';
import type { ContentBlock, ToolOutcome } from './ports.ts';
import { answerToolUses } from './tool-calls.ts';
import { textOf, toolResultContent, toolUsesOf } from './transcript.ts';
import { OUTPUT_TOO_LARGE, OUTPUT_UNUSABLE } from './transcript-limits.ts';
import type { TurnContext } from './turn-context.ts';

/** Step 7 onwards for this turn's persisted assistant message (also after a crash that followed step 6). */
export async function concludeAssistant(
  h: RunHandle,
  deps: TurnDeps,
  ctx: TurnContext,
  assistant: TranscriptMessage,
  fresh = false,
): Promise<TurnOutcome> {
  const { input, definition } = ctx;
  const text = textOf(assistant);
  const uses = toolUsesOf(assistant);
  if (assistant.stopReason === OUTPUT_TOO_LARGE) {
    return finishRun(h, deps, input, {
      status: 'failed',
      stopReason: 'error',
      error: { name: 'ModelOutputTooLargeError', message: text },
    });
  }
  if (assistant.stopReason === OUTPUT_UNUSABLE) {
    return finishRun(h, deps, input, {
      status: 'failed',
      stopReason: 'error',
      error: { name: 'ModelOutputInvalidError', message: text },
    });
  }
  if (assistant.stopReason === 'tool_use' && uses.length > 0) {
    const step = await answerToolUses(h, deps, { assistant, definition, grant: ctx.grant, fresh });
    // No call answered: none has a ledger row, and the resuming turn need not read the ledger.
    if (step.awaiting.length > 0)
      return awaitApprovals(h, deps, input, step.awaiting, step.outcomes.size === 0);
    const answer = userMessage(
      h.run.runId,
      assistant.seq + 1,
      h.run.turn,
      toolResultContent(assistant, step.outcomes),
      deps,
    );
    // The next turn's reservation rides on this commit (attempt.ts): its request is this transcript.
    return commitTurn(h, deps, input, [answer], () =>
      nextTurnReservation(h, deps, ctx, [...ctx.messages, answer]),
    );
  }
  const closing =
    uses.length > 0
      ? closingMessage(h, deps, assistant, 'the response was cut off before this call was complete')
      : undefined;
  const withClosing = { ...(closing ? { closing } : {}), transcript: ctx.messages };
  if (assistant.stopReason === 'end_turn' || assistant.stopReason === 'stop_sequence') {
    return finishRun(h, deps, input, {
      status: 'done',
      stopReason: 'end_turn',
      resultText: text,
      ...withClosing,
    });
  }
  if (assistant.stopReason === 'max_tokens')
    return finishRun(h, deps, input, {
      status: 'failed',
      stopReason: 'max_tokens',
      resultText: text,
      ...withClosing,
    });
  if (assistant.stopReason === 'refusal')
    return finishRun(h, deps, input, {
      status: 'failed',
      stopReason: 'refusal',
      resultText: text,
      ...withClosing,
    });
  return finishRun(h, deps, input, {
    status: 'failed',
    stopReason: 'error',
    error: {
      name: 'UnsupportedStopReasonError',
      message: `the model stopped with '${assistant.stopReason}', which this runtime does not continue`,
    },
    ...withClosing,
  });
}

/**
 * Ends the run; if the last assistant message has unanswered calls, answers them first from the ledger
 * (closing.ts): stored results, outcome unknown for dispatched calls never settled (settled so now), and
 * "not executed" only for calls never dispatched.
 */
export async function endWithOpenCalls(
  h: RunHandle,
  deps: TurnDeps,
  ctx: TurnContext,
  status: 'failed' | 'denied',
  stopReason: 'policy_denied' | 'timeout',
  why: string,
): Promise<TurnOutcome> {
  const last = ctx.messages.at(-1);
  const open = last?.role === 'assistant' && toolUsesOf(last).length > 0 ? last : undefined;
  const plan = open
    ? closeOpenCalls(open, ctx.ledger ?? (await deps.store.listLedger(h.run.runId)), why, isoAt(deps.clock))
    : undefined;
  return finishRun(h, deps, ctx.input, {
    status,
    stopReason,
    error: { name: stopReason, message: why },
    ...(open && plan
      ? {
          closing: closingMessage(h, deps, open, why, plan.outcomes),
          ledgerSettle: plan.settle,
          audit: plan.audit,
        }
      : {}),
  });
}

function closingMessage(
  h: RunHandle,
  deps: TurnDeps,
  assistant: TranscriptMessage,
  why: string,
  settled: ReadonlyMap<string, ToolOutcome> = new Map(),
): TranscriptMessage {
  const refusal = { content: `Not executed: ${why}.`, isError: true };
  const outcomes = new Map(toolUsesOf(assistant).map((use) => [use.id, settled.get(use.id) ?? refusal]));
  return userMessage(
    h.run.runId,
    assistant.seq + 1,
    h.run.turn,
    toolResultContent(assistant, outcomes),
    deps,
  );
}

export function userMessage(
  runId: string,
  seq: number,
  turn: number,
  content: ContentBlock[],
  deps: TurnDeps,
): TranscriptMessage {
  return { schemaVersion: 1, runId, seq, turn, role: 'user', content, createdAt: isoAt(deps.clock) };
}

export function lastAssistantText(messages: TranscriptMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'assistant');
  return last ? textOf(last) : '';
}
