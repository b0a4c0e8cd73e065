/** The dependencies of the turn engine and a small helper that keeps the in-memory run in step with commits. */
import type { Budget } from '../schemas/budget.ts';
import type { Run } from '../schemas/run.ts';
import type { ActionCatalog } from './actions.ts';
import type { Clock, EgressPort, Ids, ModelPort, SecretsPort } from './ports.ts';
import type { PriceTable } from './pricing.ts';
import type { DaySpendChange, RunChange, RunStore } from './store-port.ts';

export type EngineConfig = {
  prices: PriceTable;
  /** Role → model id (fast, balanced, deep). */
  roles: Record<string, string>;
  /** Turns per Step Functions execution before continuing in a fresh one (history limit 25,000 events). */
  turnsPerExecution: number;
};

export type TurnDeps = {
  store: RunStore;
  model: ModelPort;
  actions: ActionCatalog;
  egress: EgressPort;
  secrets: SecretsPort;
  clock: Clock;
  ids: Ids;
  config: EngineConfig;
};

export const isoAt = (clock: Clock): string => new Date(clock.nowMs()).toISOString();
export const utcDay = (clock: Clock): string => isoAt(clock).slice(0, 10);

/** A mutable handle on the run: every commit goes through it, so the fence (`rev`) is always current. */
export class RunHandle {
  run: Run;
  readonly #deps: Pick<TurnDeps, 'store' | 'clock'>;
  constructor(run: Run, deps: Pick<TurnDeps, 'store' | 'clock'>) {
    this.run = run;
    this.#deps = deps;
  }
  /** Commits `change` against the current revision; `next` defaults to the run with a fresh timestamp. */
  async commit(change: Omit<RunChange, 'run' | 'next'> & { next?: (run: Run) => Run }): Promise<Run> {
    const stamped = { ...this.run, updatedAt: isoAt(this.#deps.clock) };
    const next = change.next ? change.next(stamped) : stamped;
    const { next: _next, ...rest } = change;
    this.run = await this.#deps.store.commit({
      ...rest,
      run: this.run,
      next: { ...next, updatedAt: stamped.updatedAt },
    });
    return this.run;
  }
}

export type { Budget };

/**
 * The day-spend change that gives back an outstanding reservation when a run ends without making the call
 * it reserved for (a crash, a timeout, a cancel), so the per-day counter holds only real spend.
 */
export function releaseReservation(run: Run): DaySpendChange | undefined {
  const held = run.reservation;
  if (!held?.daily || held.usd === 0) return undefined;
  return { owner: run.owner, workflowId: run.workflowId, day: held.day, deltaUsd: -held.usd };
}
