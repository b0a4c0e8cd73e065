/**
 * How the jobs sweep keeps one grant's trouble to that grant: each grant is swept in its own scope (the
 * handler's log keys and trace subsegment name that grant's owner only), a grant that fails is recorded and
 * the sweep carries on with the next, and the failures are thrown together once the sweep ended. Also
 * what a sweep reports (how far it got) and the deadline it is given.
 */
import { cutText } from '../core/byte-caps.ts';
import type { GrantRef } from './grant-store.ts';

/** Runs one grant's sweep; the Lambda shell scopes its log keys and trace annotations to `grant`. */
export type GrantScope = <T>(grant: GrantRef, work: () => Promise<T>) => Promise<T>;

export const unscoped: GrantScope = (_grant, work) => work();

export type GrantFailure = { grantId: string; error: { name: string; message: string } };

/**
 * How far one sweep got: grants listed, grants handled (swept, or tried and recorded as faults), jobs
 * promoted, and, when it stopped before handling every grant, why: out of time (`deadline`), or another sweep
 * moved the cursor meanwhile (`overtaken`, sweep-cursor.ts). `afterGrantId`: the last grant handled, where the
 * next sweep goes on from. `passedGrantId`: the grant the last sweep went into and did not finish (cut off),
 * which this sweep started after and left for last.
 */
export type SweepProgress = {
  grants: number;
  handled: number;
  promoted: number;
  stoppedEarly?: 'deadline' | 'overtaken';
  afterGrantId?: string;
  passedGrantId?: string;
};

/**
 * The time a sweep has, as the shell knows it (Lambda: the context's `getRemainingTimeInMillis()`), so this
 * module needs no Lambda type. Without one (the local stack) a sweep walks every grant.
 */
export type SweepDeadline = {
  /** Milliseconds until the invocation is cut off. */
  remainingMs(): number;
  /** Told once when the sweep stopped for lack of time (the shell counts it, `JobsSweepStoppedEarly`). */
  stoppedEarly?(progress: SweepProgress): void;
};

/**
 * No grant's sweep starts with less time left than this: 10 s of the function's 30 s, for the grant's own
 * reads, promotions (each a run start) and the cursor's move. A grant whose sweep takes longer may still be cut
 * off by the timeout: what its sweep did is kept, the cursor still marks it, and the next sweep starts after it
 * and sweeps it last (sweep-cursor.ts).
 */
export const SWEEP_TIME_MARGIN_MS = 10_000;

/**
 * Some of the grants a sweep handled could not be swept (the others were): thrown once the sweep ended, so the
 * invocation still fails (Lambda's Errors metric, the log's "invocation failed"). Names grant ids only, no owner
 * or prompt.
 */
export class JobsSweepError extends Error {
  readonly failures: GrantFailure[];
  readonly swept: SweepProgress;

  constructor(failures: GrantFailure[], swept: SweepProgress) {
    const listed = failures
      .slice(0, 10)
      .map((failure) => `${failure.grantId} (${failure.error.name})`)
      .join(', ');
    const more = failures.length > 10 ? `, and ${failures.length - 10} more` : '';
    super(`${failures.length} of ${swept.handled} grants could not be swept: ${listed}${more}`);
    this.name = 'JobsSweepError';
    this.failures = failures;
    this.swept = swept;
  }
}

export function grantFailure(grantId: string, error: unknown): GrantFailure {
  const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
  return { grantId, error: { name, message: cutText(message, 300) } };
}
