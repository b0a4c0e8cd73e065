/**
 * Budget reservations of a turn (docs/security.md "Budgets"). Before a model call the turn reserves what
 * the call can cost at most (`reservationFor` at the adapter's effective `max_tokens`); the per-run ceiling
 * is checked against the run's spend, the per-day ceiling by a conditional write of the day's counter.
 * A reservation refused only because other runs' reservations are outstanding waits for them (bounded);
 * the run stops `budget_exceeded` only when settled spend plus its own need leaves no room.
 * A reservation is settled with the call's actual cost, counted in full even above the reservation; one
 * left unsettled (a crash during the call) is counted as spent in full, never given back as free.
 */
import type { Budget } from '../schemas/budget.ts';
import type { Run } from '../schemas/run.ts';
import type { RunHandle, TurnDeps } from './engine.ts';
import { maxOutputTokensOf } from './output-tokens.ts';
import type { ModelPort, ModelRequest } from './ports.ts';
import { type ModelPrice, reservationFor, roundUsd } from './pricing.ts';
import {
  counterChanges,
  releasePart,
  reservationPart,
  type SpendCounterChanges,
} from './reservation-parts.ts';
import {
  type DayBudgetExceededError,
  GraphBudgetExceededError,
  isSpendCeilingRefusal,
} from './store-errors.ts';
import type { AuditInput } from './store-port.ts';

/**
 * Default bound of one turn's wait for other runs' reservations (ms of the clock), see `reserveBudget`.
 * The wait happens inside the Turn Lambda, before a model call of up to 10 minutes: wait plus call must stay
 * under Lambda's 15-minute ceiling (https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html);
 * test/budget/wait-bound.test.ts checks it against the Turn function's timeout.
 */
export const DEFAULT_BUDGET_WAIT_MS = 120_000;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 8_000;

/** What the call of `request` can cost at most on `model`: input bound plus effective max_tokens of output. */
export function reservationUsd(
  model: Pick<ModelPort, 'maxOutputTokens'>,
  request: ModelRequest,
  price: ModelPrice,
): number {
  const maxTokens = model.maxOutputTokens?.(request) ?? maxOutputTokensOf(request);
  // The port may only raise what the workflow asked for (thinking), never lower the bound below it.
  return reservationFor({ ...request, maxTokens: Math.max(maxTokens, request.maxTokens) }, price);
}

export type Reserved = { kind: 'reserved'; usd: number };
export type Refused = {
  kind: 'refused';
  /** `graph`: the graph run's ceiling, all its child runs together (a graph step's child run). */
  scope: 'run' | 'day' | 'graph';
  usd: number;
  detail: Record<string, unknown>;
};
/** Other runs' reservations still hold the room this one needs after the bounded wait: try again later. */
export type Blocked = { kind: 'blocked'; usd: number; waitedMs: number };

type ReserveInput = { request: ModelRequest; price: ModelPrice; budget: Budget; day: string };

/**
 * Reserves the budget of this turn's model call. A refusal by a spend counter (the workflow's day, or a graph
 * child's graph run) is looked at: when the counter's settled spend plus this need fits under its ceiling, the
 * room is held by other runs' reservations, which are settled or released as their calls end, so the turn
 * waits (jittered exponential backoff on the clock) and tries again, for at most `config.budgetWaitMs`.
 * Fail closed: any other error propagates.
 */
export async function reserveBudget(
  h: RunHandle,
  deps: TurnDeps,
  { request, price, budget, day }: ReserveInput,
): Promise<Reserved | Refused | Blocked> {
  const usd = reservationUsd(deps.model, request, price);
  if (roundUsd(h.run.costUsd + usd) > budget.maxUsdPerRun) {
    return {
      kind: 'refused',
      scope: 'run',
      usd,
      detail: { spentUsd: h.run.costUsd, ceilingUsd: budget.maxUsdPerRun },
    };
  }
  const started = deps.clock.nowMs();
  const bound = deps.config.budgetWaitMs ?? DEFAULT_BUDGET_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    const waitedMs = deps.clock.nowMs() - started;
    let refusedBy: DayBudgetExceededError | GraphBudgetExceededError;
    try {
      await commitReservation(h, budget, { usd, day, waitedMs });
      return { kind: 'reserved', usd };
    } catch (error) {
      if (!isSpendCeilingRefusal(error)) throw error;
      refusedBy = error;
    }
    // The refused transaction carried what the turn staged (a resume's answer and settles): it is not held
    // back through the wait.
    await h.flush();
    const refused = await ceilingRefusal(h, deps, refusedBy, { budget, day, usd, waitedMs });
    if (refused) return refused;
    if (waitedMs >= bound) return { kind: 'blocked', usd, waitedMs };
    await deps.clock.sleep(Math.min(backoffMs(attempt), bound - waitedMs));
  }
}

/**
 * The refusal of a counter that has no room even once every outstanding reservation on it is settled: its
 * settled spend plus `usd` passes its ceiling. Undefined when other runs' reservations hold the room (wait).
 * A refusal by a counter this run has no ceiling on cannot be explained, so it propagates (fail closed).
 */
async function ceilingRefusal(
  h: RunHandle,
  deps: TurnDeps,
  error: DayBudgetExceededError | GraphBudgetExceededError,
  { budget, day, usd, waitedMs }: { budget: Budget; day: string; usd: number; waitedMs: number },
): Promise<Refused | undefined> {
  const graphCeiling = h.run.parent?.maxUsdPerRun;
  if (error instanceof GraphBudgetExceededError) {
    if (!h.run.parent || graphCeiling === undefined) throw error;
    const spend = await deps.store.getGraphSpendDetail(h.run.parent.runId);
    const settled = roundUsd(spend.totalUsd - spend.reservedUsd);
    if (roundUsd(settled + usd) <= graphCeiling) return undefined;
    const detail = {
      graphRunId: h.run.parent.runId,
      ceilingUsd: graphCeiling,
      settledUsd: settled,
      waitedMs,
    };
    return { kind: 'refused', scope: 'graph', usd, detail };
  }
  if (budget.maxUsdPerDay === undefined) throw error;
  const spend = await deps.store.getDaySpendDetail(h.run.owner, h.run.workflowId, day);
  const settled = roundUsd(spend.totalUsd - spend.reservedUsd);
  if (roundUsd(settled + usd) <= budget.maxUsdPerDay) return undefined;
  const detail = { day, ceilingUsd: budget.maxUsdPerDay, settledUsd: settled, waitedMs };
  return { kind: 'refused', scope: 'day', usd, detail };
}

/** Equal jitter: half the exponential step fixed, half random, so waiting runs do not retry in lockstep. */
function backoffMs(attempt: number): number {
  const step = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** attempt);
  return step / 2 + Math.random() * (step / 2);
}

async function commitReservation(
  h: RunHandle,
  budget: Budget,
  { usd, day, waitedMs }: { usd: number; day: string; waitedMs: number },
): Promise<void> {
  const part = reservationPart(h.run, budget, { turn: h.run.turn, usd, day, waitedMs });
  await h.commit({
    ...part,
    next: (current) => part.next!({ ...current, status: 'running' }),
    audit: [
      ...(h.run.status !== 'running'
        ? [{ type: 'status_changed' as const, actor: 'system', data: { from: h.run.status, to: 'running' } }]
        : []),
      ...(part.audit ?? []),
    ],
  });
}

/**
 * The counter changes (the day's, a graph child's graph run's) that settle a reservation with the call's actual
 * cost. Unconditional: a cost above the reservation is counted in full (never clipped), and the next
 * reservation of any run sees it.
 */
export function settlementCounters(
  run: Run,
  held: NonNullable<Run['reservation']>,
  costUsd: number,
): SpendCounterChanges {
  return counterChanges(run, held, roundUsd(costUsd - held.usd), -held.usd);
}

/** The audit entry of a settlement; `overrunUsd` flags a call that cost more than was reserved. */
export function settlementAudit(turn: number, reservedUsd: number, actualUsd: number): AuditInput {
  const overrun = roundUsd(actualUsd - reservedUsd);
  return {
    type: 'budget_settled',
    actor: 'system',
    data: { turn, reservedUsd, actualUsd, ...(overrun > 0 ? { overrunUsd: overrun } : {}) },
  };
}

/**
 * The model call failed. A 4xx answer (other than 408) is the provider refusing the request before any
 * output, so nothing was billed and the reservation is given back now; any other failure (a timeout, a
 * broken stream, a 5xx) may have been billed, so the reservation stays and is counted when the turn is
 * tried again or the run ends. Best effort: a failed release leaves the reservation counted, never free.
 */
export async function releaseUnbilled(h: RunHandle, error: unknown): Promise<void> {
  const status = (error as { status?: unknown } | undefined)?.status;
  const refused = typeof status === 'number' && status >= 400 && status < 500 && status !== 408;
  const held = h.run.reservation;
  if (!refused || !held) return;
  try {
    await h.commit(releasePart(h.run, held, { refusedStatus: status }));
  } catch {
    // The reservation stays outstanding and is counted as spent later: conservative, never free.
  }
}
