/** The dependencies of the turn engine and a small helper that keeps the in-memory run in step with commits. */
import type { Budget } from '../schemas/budget.ts';
import type { Run } from '../schemas/run.ts';
import type { ActionCatalog } from './actions.ts';
import type { Clock, EgressPort, Ids, ModelPort, SecretsPort, WaitingClock } from './ports.ts';
import type { PriceTable } from './pricing.ts';
import { RunConflictError } from './store-errors.ts';
import type { RunChange, RunStore } from './store-port.ts';
import type { ConflictRebase } from './turn-conflict.ts';

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

/**
 * A mutable handle on the run: every commit goes through it, so the fence (`rev`) is always current.
 * With `rebase` (a turn's handle, turn-conflict.ts), a commit that lost to a side write is re-applied on
 * the fresh run instead of failing.
 */
export class RunHandle {
  run: Run;
  readonly #deps: { store: Pick<RunStore, 'commit'>; clock: Clock };
  readonly #rebase: ConflictRebase | undefined;
  constructor(run: Run, deps: { store: Pick<RunStore, 'commit'>; clock: Clock }, rebase?: ConflictRebase) {
    this.run = run;
    this.#deps = deps;
    this.#rebase = rebase;
  }
  /** Commits `change` against the current revision; `next` defaults to the run with a fresh timestamp. */
  async commit(change: Omit<RunChange, 'run' | 'next'> & { next?: (run: Run) => Run }): Promise<Run> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#commitOnce(change);
      } catch (error) {
        if (!(error instanceof RunConflictError) || !this.#rebase || attempt >= 5) throw error;
        const fresh = await this.#rebase(this.run);
        if (!fresh) throw error;
        this.run = fresh;
      }
    }
  }
  async #commitOnce(change: Omit<RunChange, 'run' | 'next'> & { next?: (run: Run) => Run }): Promise<Run> {
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
