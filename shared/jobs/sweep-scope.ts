/**
 * How the jobs sweep keeps one grant's trouble to that grant: each grant is swept in its own scope (the
 * handler's log keys and trace subsegment name that grant's owner only), a grant that fails is recorded and
 * the sweep carries on with the next, and the failures are thrown together once every grant was tried.
 */
import type { GrantRef } from './grant-store.ts';

/** Runs one grant's sweep; the Lambda shell scopes its log keys and trace annotations to `grant`. */
export type GrantScope = <T>(grant: GrantRef, work: () => Promise<T>) => Promise<T>;

export const unscoped: GrantScope = (_grant, work) => work();

export type GrantFailure = { grantId: string; error: { name: string; message: string } };

/**
 * Some grants could not be swept (the others were): thrown after the whole sweep, so the invocation still
 * fails (Lambda's Errors metric, the log's "invocation failed"). Names grant ids only, no owner or prompt.
 */
export class JobsSweepError extends Error {
  readonly failures: GrantFailure[];
  readonly swept: { grants: number; promoted: number };

  constructor(failures: GrantFailure[], swept: { grants: number; promoted: number }) {
    const listed = failures
      .slice(0, 10)
      .map((failure) => `${failure.grantId} (${failure.error.name})`)
      .join(', ');
    const more = failures.length > 10 ? `, and ${failures.length - 10} more` : '';
    super(`${failures.length} of ${swept.grants} grants could not be swept: ${listed}${more}`);
    this.name = 'JobsSweepError';
    this.failures = failures;
    this.swept = swept;
  }
}

export function grantFailure(grantId: string, error: unknown): GrantFailure {
  const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
  return { grantId, error: { name, message: message.slice(0, 300) } };
}
