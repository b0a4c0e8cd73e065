/**
 * What a container remembers of the runs it has read: each run's owner and workflow, which never change after
 * the run is created (no write moves a run to another owner or workflow). A later turn of the same run in
 * this container knows where its workflow head is before it has read the run, so it reads the head alongside
 * the run instead of after it: one round trip fewer per turn, the head still read fresh on every turn
 * (shared/core/turn-context.ts). Bounded, least recently used first out.
 */
import type { RunScope } from '../core/store-port.ts';
import type { Run } from '../schemas/run.ts';

/** Runs remembered per container: a few hundred bytes each. */
export const RUN_SCOPE_CACHE_SIZE = 1024;

export class RunScopes {
  readonly #entries = new Map<string, RunScope>();

  /** The scope of a run read before, refreshed as most recently used, or undefined. */
  get(runId: string): RunScope | undefined {
    const found = this.#entries.get(runId);
    if (!found) return undefined;
    this.#entries.delete(runId);
    this.#entries.set(runId, found);
    return { ...found };
  }

  /** Remembers the run's scope. */
  remember(run: Pick<Run, 'runId' | 'owner' | 'workflowId' | 'trigger' | 'status'>): void {
    this.#entries.delete(run.runId);
    this.#entries.set(run.runId, {
      owner: run.owner,
      workflowId: run.workflowId,
      delegated: run.trigger.type === 'job',
      parked: run.status === 'awaiting_approval',
    });
    while (this.#entries.size > RUN_SCOPE_CACHE_SIZE) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }
}
