/**
 * What the conformance kit needs from an adapter and its engine (or the engine's fixture): the adapter under
 * test and a few levers on the engine. An engine's fixture maps the scripts (the fixture engine's language,
 * shared/external/fixture-engine/state.ts) and the faults onto whatever it offers.
 */

import type { ExecutionScript } from '../../../shared/external/fixture-engine/index.ts';
import type { ExternalAdapter } from '../../../shared/external/index.ts';

/** How the engine misbehaves until `restore`: unreachable, answering 5xx, or losing the next dispatch's answer after admitting. */
export type ConformanceFault = 'unreachable' | 'server_error' | 'lose_next_dispatch_answer';

export interface ConformanceHarness {
  readonly adapter: ExternalAdapter;
  /** Scripts the execution admitted under `key` from now on. */
  script(key: string, script: ExecutionScript): void;
  fault(kind: ConformanceFault): void;
  restore(): void;
  /** Recreates every known execution under a new incarnation (same key, same payload). */
  recreate(): void;
  close(): Promise<void>;
}

/** Builds a fresh adapter and engine for one check. */
export type MakeHarness = () => Promise<ConformanceHarness>;

/** One check of the kit: a name stating the behaviour, and a body that throws when it does not hold. */
export type ConformanceCheck = { name: string; run(harness: ConformanceHarness): Promise<void> };

/** Awaits `promise` expecting it to reject with an instance of `type`; returns the error. */
export async function rejection<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof type) return error;
    throw new Error(`expected ${type.name}, got ${(error as Error)?.name}: ${(error as Error)?.message}`, {
      cause: error,
    });
  }
  throw new Error(`expected ${type.name}, but it resolved`);
}
