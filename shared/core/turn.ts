/**
 * One turn of a run (one Lambda invocation), as in DESIGN.md "One turn":
 * 1. load the run, fenced by turn number; 2. effective grant = version allow-set ∩ live policy;
 * 3. settle decided approvals; 4. reserve budget; 5. call the model with only the effective tools;
 * 6. persist the assistant message, usage and cost; 7. gate and dispatch each tool_use under the ledger;
 * 8. commit the turn. Every write is a fenced transaction carrying its audit entries.
 */

import type { TranscriptMessage } from '../schemas/message.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import { toolSpecOf } from './actions.ts';
import { resolveAgentPolicy } from './agent-policy.ts';
import {
  countUnsettledReservation,
  releaseUnbilled,
  reserveBudget,
  settlementAudit,
  settlementDaySpend,
} from './budget.ts';
import { closeOpenCalls } from './closing.ts';
import { isoAt, RunHandle, type TurnDeps, utcDay } from './engine.ts';
import { RunNotFoundError, TurnFenceError } from './errors.ts';
import { awaitApprovals, commitTurn, finishRun, secondsUntilExpiry } from './finish.ts';
import { type EffectiveGrant, effectiveGrant } from './gate.ts';
import type { TurnOutcome, TurnPointer } from './outcome.ts';
import type { ContentBlock, ModelRequest, ModelResponse, ToolOutcome } from './ports.ts';
import { costOf, type ModelPrice, priceFor, roundUsd } from './pricing.ts';
import { redactModelContent } from './redaction.ts';
import { ApprovalAlreadyDecidedError, LedgerConflictError, RunConflictError } from './store-errors.ts';
import type { DaySpendChange } from './store-port.ts';
import { answerToolUses } from './tool-calls.ts';
import { systemPromptOf, textOf, toModelMessages, toolResultContent, toolUsesOf } from './transcript.ts';
import { contentHashOf, OUTPUT_TOO_LARGE, oversizeReason } from './transcript-limits.ts';
import { rebaseOnSideWrites } from './turn-conflict.ts';

type TurnContext = {
  input: TurnPointer;
  definition: WorkflowDefinition;
  grant: EffectiveGrant;
  messages: TranscriptMessage[];
};

/**
 * Runs one turn. A write that loses to a side write is re-applied on the fresh run (turn-conflict.ts); one
 * that loses to real progress (the run ended, another invocation committed) re-enters the turn from the
 * store, which reuses the persisted assistant message and ledger rows: a paid model call or a dispatch is
 * never repeated because of a conflict.
 */
export async function runTurn(deps: TurnDeps, input: TurnPointer): Promise<TurnOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await turnFromStore(deps, input);
    } catch (error) {
      if (!lostARace(error) || attempt >= 3) throw error;
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

async function turnFromStore(deps: TurnDeps, input: TurnPointer): Promise<TurnOutcome> {
  const run = await deps.store.getRun(input.runId);
  if (!run) throw new RunNotFoundError(input.runId);
  const h = new RunHandle(run, deps, rebaseOnSideWrites(deps.store));
  if (isTerminalRunStatus(run.status) || run.turn > input.turn) return committedOutcome(h, deps, input);
  if (run.turn < input.turn) throw new TurnFenceError(run.runId, input.turn, run.turn);

  // A saved agent workflow's version, or a graph step's child run's derived definition (agent-policy.ts).
  const { definition, liveDefinition, enabled } = await resolveAgentPolicy(deps.store, run);
  const ctx: TurnContext = {
    input,
    definition,
    grant: effectiveGrant(definition, liveDefinition, enabled),
    messages: await deps.store.listMessages(run.runId),
  };
  if (!enabled)
    return endWithOpenCalls(h, deps, ctx, 'denied', 'policy_denied', 'the workflow was disabled or deleted');
  if (deps.clock.nowMs() > Date.parse(run.deadlineAt))
    return endWithOpenCalls(h, deps, ctx, 'failed', 'timeout', 'the run timed out');

  const last = ctx.messages.at(-1);
  if (last?.role === 'assistant') {
    if (last.turn === h.run.turn) return concludeAssistant(h, deps, ctx, last);
    // A previous turn's calls were waiting for approval: answer them, then call the model.
    const step = await answerToolUses(h, deps, { assistant: last, definition, grant: ctx.grant });
    if (step.awaiting.length > 0) return awaitApprovals(h, deps, input, step.awaiting);
    const answer = userMessage(
      h.run.runId,
      ctx.messages.length,
      h.run.turn,
      toolResultContent(last, step.outcomes),
      deps,
    );
    await h.commit({
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

async function callModel(h: RunHandle, deps: TurnDeps, ctx: TurnContext): Promise<TurnOutcome> {
  const { definition, input } = ctx;
  const budget = definition.budget;
  if (h.run.modelCalls >= budget.maxTurns) {
    return finishRun(h, deps, input, {
      status: 'failed',
      stopReason: 'max_turns',
      resultText: lastAssistantText(ctx.messages),
    });
  }
  const model = definition.model.id ?? deps.config.roles[definition.model.role ?? ''];
  if (!model) {
    return finishRun(h, deps, input, {
      status: 'failed',
      stopReason: 'error',
      error: {
        name: 'ModelConfigError',
        message: `no model is configured for role '${definition.model.role}'`,
      },
    });
  }
  const tools = [...ctx.grant.keys()].flatMap((name) => {
    const action = deps.actions.resolve(name, definition);
    return action ? [toolSpecOf(action)] : [];
  });
  const request: ModelRequest = {
    model,
    system: systemPromptOf(definition),
    messages: toModelMessages(ctx.messages),
    tools,
    maxTokens: definition.model.maxTokens,
    thinking: definition.model.thinking,
    workflow: definition.name,
  };
  let price: ReturnType<typeof priceFor>;
  try {
    price = priceFor(model, deps.config.prices);
  } catch (error) {
    // Fail closed: a budget that cannot be priced cannot be enforced.
    return finishRun(h, deps, input, {
      status: 'failed',
      stopReason: 'error',
      error: { name: (error as Error).name, message: (error as Error).message },
    });
  }

  const reserved = await reserveTurnBudget(h, deps, ctx, request, price);
  if (reserved.outcome) return reserved.outcome;
  const held = reserved.held;

  const response = await callOrRelease(h, deps, request);
  const cost = costOf(response.usage, price);
  const said = await redactModelContent(
    response.content,
    Object.values(definition.credRefs),
    deps.secrets,
    h.run.owner,
  );
  // An answer too large to store is replaced by a note and ends the run (concludeAssistant), instead of
  // a commit that DynamoDB refuses on every retry.
  const tooLarge = oversizeReason(said);
  const content: ContentBlock[] = tooLarge
    ? [{ type: 'text', text: `(the model's response was not kept: ${tooLarge})` }]
    : said.length > 0
      ? said
      : [{ type: 'text', text: '(no content)' }];
  const assistant: TranscriptMessage = {
    schemaVersion: 1,
    runId: h.run.runId,
    seq: ctx.messages.length,
    turn: h.run.turn,
    role: 'assistant',
    content,
    stopReason: tooLarge ? OUTPUT_TOO_LARGE : response.stopReason,
    usage: response.usage,
    costUsd: cost,
    model: response.model,
    createdAt: isoAt(deps.clock),
  };
  await h.commit({
    messages: [assistant],
    next: (current) => ({
      ...current,
      usage: {
        inputTokens: current.usage.inputTokens + response.usage.inputTokens,
        outputTokens: current.usage.outputTokens + response.usage.outputTokens,
        cacheCreationInputTokens:
          current.usage.cacheCreationInputTokens + response.usage.cacheCreationInputTokens,
        cacheReadInputTokens: current.usage.cacheReadInputTokens + response.usage.cacheReadInputTokens,
      },
      costUsd: roundUsd(current.costUsd + cost),
      modelCalls: current.modelCalls + 1,
      messageCount: current.messageCount + 1,
      reservation: undefined,
    }),
    // Counted in full even above the reservation: never clipped (settlementDaySpend).
    ...withDaySpend(settlementDaySpend(h.run, held, cost)),
    audit: [
      {
        type: 'model_call',
        actor: 'model',
        data: {
          turn: h.run.turn,
          model: response.model,
          stopReason: response.stopReason,
          usage: response.usage,
          costUsd: cost,
          // Binds the assistant message as stored: `wf audit verify` recomputes it from the transcript.
          contentHash: contentHashOf(content),
        },
      },
      settlementAudit(h.run.turn, held.usd, cost),
    ],
  });
  ctx.messages.push(assistant);
  return concludeAssistant(h, deps, ctx, assistant);
}

// ---------------------------------------------------------------- budget steps (shared/core/budget.ts)

type TurnReservation =
  | { outcome: TurnOutcome; held?: undefined }
  | { outcome?: undefined; held: NonNullable<Run['reservation']> };

/**
 * Step 4: counts a reservation left unsettled by an earlier attempt of this turn as spent, then reserves
 * this call's budget: waits for other runs' reservations (bounded), hands over to a fresh execution when
 * they still hold the room, or ends the run `budget_exceeded`.
 */
async function reserveTurnBudget(
  h: RunHandle,
  deps: TurnDeps,
  ctx: TurnContext,
  request: ModelRequest,
  price: ModelPrice,
): Promise<TurnReservation> {
  const { definition, input } = ctx;
  await countUnsettledReservation(h);
  const result = await reserveBudget(h, deps, {
    request,
    price,
    budget: definition.budget,
    day: utcDay(deps.clock),
  });
  if (result.kind === 'reserved') return { held: h.run.reservation! };
  if (result.kind === 'blocked') {
    // Nothing was written: a fresh execution runs this turn again (and waits again if it must). Fresh, not
    // `continue`: a wait of hours in one execution would approach its 25,000-event history quota
    // (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html); the run's own timeout
    // bounds the whole wait (checked at the start of every turn).
    return {
      outcome: {
        runId: h.run.runId,
        turn: h.run.turn,
        segmentStartTurn: input.segmentStartTurn,
        next: 'continue_as_new',
      },
    };
  }
  return {
    outcome: await finishRun(h, deps, input, {
      status: 'failed',
      stopReason: 'budget_exceeded',
      resultText: lastAssistantText(ctx.messages),
      audit: [
        {
          type: 'budget_exceeded',
          actor: 'system',
          data: { scope: result.scope, reserveUsd: result.usd, ...result.detail },
        },
      ],
    }),
  };
}

/** Step 5: the model call; a refusal the provider did not bill gives the reservation back first. */
async function callOrRelease(h: RunHandle, deps: TurnDeps, request: ModelRequest): Promise<ModelResponse> {
  try {
    return await deps.model.call(request);
  } catch (error) {
    await releaseUnbilled(h, error);
    throw error;
  }
}

const withDaySpend = (change: DaySpendChange | undefined) => (change ? { daySpend: change } : {});

/** Step 7 onwards for this turn's persisted assistant message (also after a crash that followed step 6). */
async function concludeAssistant(
  h: RunHandle,
  deps: TurnDeps,
  ctx: TurnContext,
  assistant: TranscriptMessage,
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
  if (assistant.stopReason === 'tool_use' && uses.length > 0) {
    const step = await answerToolUses(h, deps, { assistant, definition, grant: ctx.grant });
    if (step.awaiting.length > 0) return awaitApprovals(h, deps, input, step.awaiting);
    return commitTurn(h, deps, input, [
      userMessage(
        h.run.runId,
        assistant.seq + 1,
        h.run.turn,
        toolResultContent(assistant, step.outcomes),
        deps,
      ),
    ]);
  }
  const closing =
    uses.length > 0
      ? closingMessage(h, deps, assistant, 'the response was cut off before this call was complete')
      : undefined;
  const withClosing = closing ? { closing } : {};
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
async function endWithOpenCalls(
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
    ? closeOpenCalls(open, await deps.store.listLedger(h.run.runId), why, isoAt(deps.clock))
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

function userMessage(
  runId: string,
  seq: number,
  turn: number,
  content: ContentBlock[],
  deps: TurnDeps,
): TranscriptMessage {
  return { schemaVersion: 1, runId, seq, turn, role: 'user', content, createdAt: isoAt(deps.clock) };
}

function lastAssistantText(messages: TranscriptMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'assistant');
  return last ? textOf(last) : '';
}

/** Answers a retried invocation (or a terminal run) from what is committed, changing nothing. */
async function committedOutcome(h: RunHandle, deps: TurnDeps, input: TurnPointer): Promise<TurnOutcome> {
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
    };
  }
  return { ...pointer, next: run.lastNext === 'continue_as_new' ? 'continue_as_new' : 'continue' };
}
