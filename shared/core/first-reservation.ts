/**
 * Turn 0's budget reservation, made by the run's creation (docs/security.md "Budgets", "Turn 0's reservation").
 * Every turn ≥ 1 spends a reservation its predecessor's commit made ahead (attempt.ts); turn 0 has no
 * predecessor, so the transaction that creates the run makes it: the run item holds it and the day's counter
 * counts it, atomically with the run. Turn 0's first attempt in the run's first execution (named after the run)
 * then spends it exactly as a turn ≥ 1 spends its own, with no write before its model call.
 *
 * What the estimate needs is what turn 0's own reservation is computed from (model-request.ts): the request's
 * system prompt, first message and tool specs, the model's price and its effective max_tokens. All but the tool
 * specs and the deployment's prices and roles come from the version; those come in through `FirstTurnPlanning`
 * (the action catalog port and the engine config: no SDK). The tools are those of the version's allow-set: the
 * live policy at turn 0 can only narrow it, so turn 0's need is at most this. A reservation that turn 0 finds
 * too small, or cannot use (another attempt, another execution), is handled as one made ahead by a turn.
 */
import type { TranscriptMessage } from '../schemas/message.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import type { ActionSpecCatalog } from './actions.ts';
import { reservationUsd } from './budget.ts';
import type { EngineConfig } from './engine.ts';
import { effectiveGrant } from './gate.ts';
import { planModelCall } from './model-request.ts';
import type { Clock, ModelPort } from './ports.ts';
import { reservationPart } from './reservation-parts.ts';
import type { AuditInput, DaySpendChange, GraphSpendChange } from './store-port.ts';

/** What a run's creator supplies to reserve turn 0: the engine's prices and roles, the action catalog. */
export type FirstTurnPlanning = {
  config: Pick<EngineConfig, 'prices' | 'roles'>;
  actions: ActionSpecCatalog;
  /** The model adapter's max_tokens rule, when the creator has it; otherwise the default (output-tokens.ts). */
  model?: Pick<ModelPort, 'maxOutputTokens'>;
};

/** The writes of turn 0's reservation that ride on the run's creation (shared/store/runs.ts createRun). */
export type FirstReservation = {
  reservation: NonNullable<Run['reservation']>;
  /** The day's counter, conditional on the day's ceiling; refused, the run is created without the reservation. */
  daySpend?: DaySpendChange;
  /** A graph child's graph run counter, conditional on the graph's ceiling; refused, the same. */
  graphSpend?: GraphSpendChange;
  audit: AuditInput[];
};

type Prepared = { run: Run; firstMessage: TranscriptMessage };

/**
 * Turn 0's reservation for a new agent run whose turns use `definition`, or undefined when turn 0 must reserve
 * for itself: the model or its price is unknown, or the call alone would pass the run's, the day's or (a graph
 * child) the graph run's ceiling (turn 0 then stops the run `budget_exceeded`, visibly, as before). Pure.
 */
export function firstTurnReservation(
  prepared: Prepared,
  definition: WorkflowDefinition,
  planning: FirstTurnPlanning,
  clock: Clock,
): FirstReservation | undefined {
  const { run } = prepared;
  const grant = effectiveGrant(definition, definition, true);
  const planned = planModelCall(planning, { definition, grant }, [prepared.firstMessage], run.owner);
  if ('error' in planned) return undefined;
  const usd = reservationUsd(planning.model ?? {}, planned.request, planned.price);
  const budget = definition.budget;
  const ceilings = [budget.maxUsdPerRun, budget.maxUsdPerDay, run.parent?.maxUsdPerRun];
  if (ceilings.some((ceiling) => ceiling !== undefined && usd > ceiling)) return undefined;
  const day = new Date(clock.nowMs()).toISOString().slice(0, 10);
  const part = reservationPart(run, budget, { turn: 0, usd, day, executionName: run.runId });
  const reservation = part.next!(run).reservation!;
  return {
    reservation,
    ...(part.daySpend ? { daySpend: part.daySpend } : {}),
    ...(part.graphSpend ? { graphSpend: part.graphSpend } : {}),
    audit: part.audit ?? [],
  };
}

/** `prepared` with turn 0's reservation (none without `planning`: turn 0 then reserves, as before). */
export function reserveFirstTurn<P extends Prepared & { firstReservation?: FirstReservation }>(
  prepared: P,
  definition: WorkflowDefinition,
  planning: FirstTurnPlanning | undefined,
  clock: Clock,
): P {
  const first = planning && firstTurnReservation(prepared, definition, planning, clock);
  return first ? { ...prepared, firstReservation: first } : prepared;
}
