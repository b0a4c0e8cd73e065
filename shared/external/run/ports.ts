/** What the external run steps (Start, Observe, Finish) work with: the store, a clock and the run's adapter. */
import type { Clock } from '../../core/ports.ts';
import type { RunStore } from '../../core/store-port.ts';
import type { Run } from '../../schemas/run.ts';
import type { ExternalAdapter } from '../contract.ts';
import type { ExternalDefinition } from '../definition.ts';

export type ExternalRunDeps = {
  store: RunStore;
  clock: Clock;
  /**
   * The adapter of the run's engine, acting for the run's owner with the workflow's credential slot
   * (composition roots: `adapterFactory` in adapter-for.ts). Throws `ExternalEngineUnavailableError` when
   * the deployment no longer enables the engine.
   */
  adapterFor(run: Run, definition: ExternalDefinition): ExternalAdapter;
  /** A graph step's child run that ended answers its parent step's wait (shared/graph-run/parent-answer.ts). */
  answerParent?: ((run: Run) => Promise<unknown>) | undefined;
};

/**
 * What a step hands the state machine: `next` routes the Choice, `waitSeconds` feeds the Wait's SecondsPath
 * (`wait`: ObserveWait then Observe; `retry_start`: StartWait then Start again, the engine at capacity).
 */
export type ExternalNext =
  | { runId: string; next: 'wait' | 'retry_start'; waitSeconds: number }
  | { runId: string; next: 'finish' | 'deliver' | 'stop' };

/**
 * Start got no usable answer (transport) or another "retry later" than capacity (a credential that could not
 * be loaded now): the state machine retries the task with the same key and payload, which the engine
 * deduplicates (the Retry in external-state-machine.ts). An engine at capacity (429/503) is not this: Start
 * answers `retry_start` and the run waits (start.ts).
 */
export class ExternalRetryLaterError extends Error {
  constructor(cause: Error) {
    super(`the engine gave no usable answer to start, retried with the same key: ${cause.message}`, {
      cause,
    });
    this.name = 'ExternalRetryLaterError';
  }
}
