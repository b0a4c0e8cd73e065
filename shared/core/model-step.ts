/**
 * The model step of a turn (DESIGN.md "One turn", steps 4-6): reserve the budget, call the model with only
 * the effective tools, and stage the assistant message with its usage and cost for the turn's next write.
 */
import type { TranscriptMessage } from '../schemas/message.ts';
import type { Run } from '../schemas/run.ts';
import { markModelCalled, type TurnAttempt, unusedAheadReservation } from './attempt.ts';
import {
  releaseUnbilled,
  reservationUsd,
  reserveBudget,
  settlementAudit,
  settlementCounters,
} from './budget.ts';
import { concludeAssistant, lastAssistantText } from './conclude.ts';
import { isoAt, type RunHandle, type TurnDeps, utcDay } from './engine.ts';
import { CredentialRefusedError } from './errors.ts';
import { finishRun } from './finish.ts';
import { planModelCall } from './model-request.ts';
import type { TurnOutcome } from './outcome.ts';
import type { ContentBlock, ModelRequest, ModelResponse } from './ports.ts';
import { costOf, type ModelPrice, roundUsd } from './pricing.ts';
import { assertCredentialsReadable, redactModelContent, wellFormedContent } from './redaction.ts';
import { outstandingReservationPart, releasePart } from './reservation-parts.ts';
import {
  contentHashOf,
  OUTPUT_TOO_LARGE,
  OUTPUT_UNUSABLE,
  oversizeReason,
  unusableReason,
} from './transcript-limits.ts';
import type { TurnContext } from './turn-context.ts';

export async function callModel(h: RunHandle, deps: TurnDeps, ctx: TurnContext): Promise<TurnOutcome> {
  const { definition, input } = ctx;
  const budget = definition.budget;
  if (h.run.modelCalls >= budget.maxTurns) {
    return finishRun(h, deps, input, {
      status: 'failed',
      stopReason: 'max_turns',
      resultText: lastAssistantText(ctx.messages),
    });
  }
  const planned = planModelCall(deps, ctx, ctx.messages, h.run.owner);
  if ('error' in planned) {
    return finishRun(h, deps, input, { status: 'failed', stopReason: 'error', error: planned.error });
  }
  const { request, price } = planned;
  const refused = await credentialsBeforeCall(h, deps, ctx);
  if (refused) return refused;

  const reserved = await reserveTurnBudget(h, deps, ctx, request, price);
  if (reserved.outcome) return reserved.outcome;
  const held = reserved.held;

  const response = await callOrRelease(h, deps, request, input.attempt);
  const cost = costOf(response.usage, price);
  const said = await redactModelContent(
    wellFormedContent(response.content),
    definition.credRefs,
    deps.secrets,
    h.run.owner,
  );
  // An answer too large to store is replaced by a note and ends the run (concludeAssistant), instead of
  // a commit that DynamoDB refuses on every retry.
  const tooLarge = oversizeReason(said);
  // Calls that cannot be answered (an id the API refuses back, or two calls with one id: one ledger row) end
  // the run the same way, before any of them is gated or dispatched.
  const unusable = tooLarge === undefined ? unusableReason(said) : undefined;
  const notKept = tooLarge ?? unusable;
  const content: ContentBlock[] = notKept
    ? [{ type: 'text', text: `(the model's response was not kept: ${notKept})` }]
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
    stopReason: tooLarge ? OUTPUT_TOO_LARGE : unusable ? OUTPUT_UNUSABLE : response.stopReason,
    usage: response.usage,
    costUsd: cost,
    model: response.model,
    createdAt: isoAt(deps.clock),
  };
  // Staged, not committed: the turn's next write carries it (the first call's pending row, the approval
  // requests, or the run's end), so the answer and what it asked for are stored together. A crash before
  // that write repeats the call, and the reservation left outstanding is counted as spent (budget.ts).
  await h.stage({
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
    // Counted in full even above the reservation: never clipped (settlementCounters).
    ...settlementCounters(h.run, held, cost),
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
  return concludeAssistant(h, deps, ctx, assistant, true);
}

/**
 * The answer is kept only if it can be redacted of every credential of the workflow (redaction.ts): checked
 * before the call, so a refused or failed read costs no model call. One that can never be read (no such secret,
 * access denied, outside the owner's namespace) ends the run failed, naming the slot, on the first attempt;
 * any other failure is thrown for the engine retrier. What the turn staged (an approved call's settle) is
 * committed first either way (the run's end carries it), so a retried Turn reuses it instead of finding the
 * call's outcome unknown.
 */
async function credentialsBeforeCall(
  h: RunHandle,
  deps: TurnDeps,
  ctx: TurnContext,
): Promise<TurnOutcome | undefined> {
  try {
    await assertCredentialsReadable(ctx.definition.credRefs, deps.secrets, h.run.owner);
    return undefined;
  } catch (error) {
    if (error instanceof CredentialRefusedError) {
      return finishRun(h, deps, ctx.input, {
        status: 'failed',
        stopReason: 'error',
        error: { name: error.name, message: error.message },
      });
    }
    await h.flush();
    throw error;
  }
}

type TurnReservation =
  | { outcome: TurnOutcome; held?: undefined }
  | { outcome?: undefined; held: NonNullable<Run['reservation']> };

/**
 * Step 4. A reservation made ahead by the previous turn's commit pays for this call when this is the first
 * attempt and it covers the call (attempt.ts); one too small is given back. Any other outstanding reservation
 * is counted as spent (an earlier attempt may have paid for a call with it). Then this call's budget is
 * reserved: waits for other runs' reservations (bounded), hands over to a fresh execution when they still
 * hold the room, or ends the run `budget_exceeded`. What is staged is durable before the call either way.
 */
async function reserveTurnBudget(
  h: RunHandle,
  deps: TurnDeps,
  ctx: TurnContext,
  request: ModelRequest,
  price: ModelPrice,
): Promise<TurnReservation> {
  const { definition, input } = ctx;
  const ahead = unusedAheadReservation(h.run, input.attempt);
  // Made under ceilings a job's live grant has since lowered (turn-context.ts `narrowed`): made again instead.
  if (ahead && !ctx.narrowed && ahead.usd >= reservationUsd(deps.model, request, price)) {
    await h.flush();
    // Turn 0 spending what its run's creation reserved: the run starts with the call's answer (its next write).
    if (h.run.status !== 'running') await h.stage(startRunning(h.run.status));
    return { held: ahead };
  }
  // Staged: the reservation's own commit carries it (one transaction).
  await h.stage(
    ahead ? releasePart(h.run, ahead, { unused: true, tooSmall: true }) : outstandingReservationPart(h.run),
  );
  const result = await reserveBudget(h, deps, {
    request,
    price,
    budget: definition.budget,
    day: utcDay(deps.clock),
  });
  if (result.kind === 'reserved') return { held: h.run.reservation! };
  if (result.kind === 'blocked') {
    // No reservation was written (what the turn had staged was, before the wait: budget.ts): a fresh
    // execution runs this turn again (and waits again if it must). Fresh, not `continue`: a wait of hours
    // in one execution would approach its 25,000-event history quota
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

/**
 * Step 5: the model call, recorded as made before it starts (attempt.ts); a refusal the provider did not bill
 * gives the reservation back first.
 */
async function callOrRelease(
  h: RunHandle,
  deps: TurnDeps,
  request: ModelRequest,
  attempt: TurnAttempt | undefined,
): Promise<ModelResponse> {
  markModelCalled(attempt);
  try {
    return await deps.model.call(request);
  } catch (error) {
    await releaseUnbilled(h, error);
    throw error;
  }
}

/** A pending run moving to running, with its audit entry. */
const startRunning = (from: Run['status']) => ({
  next: (current: Run): Run => ({ ...current, status: 'running' }),
  audit: [{ type: 'status_changed' as const, actor: 'system', data: { from, to: 'running' } }],
});
