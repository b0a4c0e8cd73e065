/** Test support for races: a store that lets another writer in just before a chosen commit, and counted actions. */
import type { ActionCatalog } from '../../shared/core/actions.ts';
import type { RunChange, RunStore } from '../../shared/core/store-port.ts';
import { ForwardingStore } from './engine.ts';

/**
 * A store that runs `interleave` (a concurrent writer: a cancel, resume bookkeeping, a decision) once,
 * just before the first commit matching `matches` reaches the table; that commit then carries a stale
 * revision, exactly as when the other writer wins the race.
 */
export class InterleavingStore extends ForwardingStore {
  private armed = true;
  private readonly matches: (change: RunChange) => boolean;
  private readonly interleave: () => Promise<unknown>;
  private readonly report: (error: unknown, change: RunChange) => unknown;
  /** `report` maps the error the losing commit gets (DynamoDB names the most specific failed condition). */
  constructor(
    inner: RunStore,
    matches: (change: RunChange) => boolean,
    interleave: () => Promise<unknown>,
    report: (error: unknown, change: RunChange) => unknown = (error) => error,
  ) {
    super(inner);
    this.matches = matches;
    this.interleave = interleave;
    this.report = report;
  }
  async commit(change: RunChange) {
    if (this.armed && this.matches(change)) {
      this.armed = false;
      await this.interleave();
      try {
        return await this.inner.commit(change);
      } catch (error) {
        throw this.report(error, change);
      }
    }
    return this.inner.commit(change);
  }
}

/** Wraps a catalog so every action run is counted by tool name (the effect count, at the action). */
export function countingCatalog(catalog: ActionCatalog): ActionCatalog & { runs: Record<string, number> } {
  const runs: Record<string, number> = {};
  return {
    runs,
    resolve(name, definition) {
      const action = catalog.resolve(name, definition);
      if (!action) return undefined;
      return {
        ...action,
        run: (input, ctx) => {
          runs[name] = (runs[name] ?? 0) + 1;
          return action.run(input, ctx);
        },
      };
    },
  };
}

export const assistantPersisted = (change: RunChange) =>
  (change.messages ?? []).some((m) => m.role === 'assistant');
export const settleOf = (tool: string) => (change: RunChange) =>
  (change.ledgerSettle ?? []).some((r) => r.tool === tool);
