/**
 * The request of a turn's model call (only the effective tools, the transcript so far) and its price; and
 * the next turn's reservation, computed from the request that turn will send, to ride on this turn's commit.
 */
import type { TranscriptMessage } from '../schemas/message.ts';
import { type ActionSpecCatalog, toolSpecOf } from './actions.ts';
import { reservationUsd } from './budget.ts';
import { type RunHandle, type TurnDeps, utcDay } from './engine.ts';
import type { ModelRequest } from './ports.ts';
import { type ModelPrice, priceFor, roundUsd } from './pricing.ts';
import { reservationPart } from './reservation-parts.ts';
import type { ChangePart } from './staged-change.ts';
import { systemPromptOf, toModelMessages } from './transcript.ts';
import type { TurnContext } from './turn-context.ts';

/** The request of a model call over `messages` with only the effective tools, and its price. */
export function planModelCall(
  deps: { config: Pick<TurnDeps['config'], 'prices' | 'roles'>; actions: ActionSpecCatalog },
  // `input` absent: a plan made when the run is created (first-reservation.ts), priced, never sent.
  ctx: Pick<TurnContext, 'definition' | 'grant'> & { input?: Pick<TurnContext['input'], 'runId'> },
  messages: TranscriptMessage[],
  // The run's owner: its prompt-cache entries are its own (ModelRequest.owner).
  owner: string,
): { request: ModelRequest; price: ModelPrice } | { error: { name: string; message: string } } {
  const { definition } = ctx;
  const model = definition.model.id ?? deps.config.roles[definition.model.role ?? ''];
  if (!model) {
    return {
      error: {
        name: 'ModelConfigError',
        message: `no model is configured for role '${definition.model.role}'`,
      },
    };
  }
  const tools = [...ctx.grant.keys()].flatMap((name) => {
    const action = deps.actions.resolve(name, definition);
    return action ? [toolSpecOf(action)] : [];
  });
  const request: ModelRequest = {
    model,
    system: systemPromptOf(definition),
    messages: toModelMessages(messages),
    tools,
    maxTokens: definition.model.maxTokens,
    thinking: definition.model.thinking,
    workflow: definition.name,
    ...(ctx.input ? { runId: ctx.input.runId } : {}),
    owner,
  };
  try {
    return { request, price: priceFor(model, deps.config.prices) };
  } catch (error) {
    // Fail closed: a budget that cannot be priced cannot be enforced.
    return { error: { name: (error as Error).name, message: (error as Error).message } };
  }
}

/**
 * The next turn's reservation, to ride on this turn's commit (finish.ts `commitTurn`, attempt.ts): what the
 * next call over `messages` can cost at most, when the invocation reports its attempt, the next turn will call
 * the model (turns left, a priced model) and the run's ceiling has room. The day's ceiling is the commit's
 * condition. Anything else reserves in the next turn, as before.
 */
export function nextTurnReservation(
  h: RunHandle,
  deps: TurnDeps,
  ctx: TurnContext,
  messages: TranscriptMessage[],
): ChangePart | undefined {
  const attempt = ctx.input.attempt;
  const budget = ctx.definition.budget;
  // Not under a job's narrowed live grant: that turn reserves against the ceilings it reads (model-step.ts).
  if (!attempt || ctx.narrowed || h.run.reservation || h.run.modelCalls >= budget.maxTurns) return undefined;
  const planned = planModelCall(deps, ctx, messages, h.run.owner);
  if ('error' in planned) return undefined;
  const usd = reservationUsd(deps.model, planned.request, planned.price);
  if (roundUsd(h.run.costUsd + usd) > budget.maxUsdPerRun) return undefined;
  return reservationPart(h.run, budget, {
    turn: h.run.turn + 1,
    usd,
    day: utcDay(deps.clock),
    executionId: attempt.executionId,
  });
}
