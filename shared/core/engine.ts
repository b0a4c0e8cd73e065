/** The dependencies of the turn engine; the run handle every write goes through lives in run-handle.ts. */
import type { Budget } from '../schemas/budget.ts';
import type { ActionCatalog } from './actions.ts';
import type { Clock, EgressPort, Ids, ModelPort, SecretsPort, WaitingClock } from './ports.ts';
import type { PriceTable } from './pricing.ts';
import type { RunStore } from './store-port.ts';

export type EngineConfig = {
  prices: PriceTable;
  /** Role → model id (fast, balanced, deep). */
  roles: Record<string, string>;
  /** Turns per Step Functions execution before continuing in a fresh one (history limit 25,000 events). */
  turnsPerExecution: number;
  /**
   * How long one turn waits (clock ms) for other runs' reservations to make room under a per-day ceiling
   * before handing over to a fresh execution that waits again (default `DEFAULT_BUDGET_WAIT_MS`).
   */
  budgetWaitMs?: number;
};

export type TurnDeps = {
  store: RunStore;
  model: ModelPort;
  actions: ActionCatalog;
  egress: EgressPort;
  secrets: SecretsPort;
  clock: WaitingClock;
  ids: Ids;
  config: EngineConfig;
};

export const isoAt = (clock: Clock): string => new Date(clock.nowMs()).toISOString();
export const utcDay = (clock: Clock): string => isoAt(clock).slice(0, 10);

export { RunHandle } from './run-handle.ts';

export type { Budget };
