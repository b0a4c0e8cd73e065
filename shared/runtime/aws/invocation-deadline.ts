/**
 * The time a Lambda invocation still gives a model call. Lambda ends an invocation at the function's timeout
 * (https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html) and reports the time left through
 * the context's `getRemainingTimeInMillis()`
 * (https://docs.aws.amazon.com/lambda/latest/dg/nodejs-context.html). A model call must end early enough for
 * the turn to record its failure and for tools and commits after it, so it gets the time left less
 * `COMMIT_MARGIN_MS`. The model port is built once per container; the invocation's context is kept per
 * invocation in async-local storage, and the port reads it as each call starts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Time kept back from a model call for what follows it in the invocation (the wait-bound test's minute). */
export const COMMIT_MARGIN_MS = 60_000;

/** The part of a Lambda context this reads. */
export type RemainingTime = { getRemainingTimeInMillis(): number };

const invocation = new AsyncLocalStorage<RemainingTime>();

/** Runs `work` with the invocation's context in reach of `modelCallTimeLimitMs` (as is without one). */
export function withInvocationDeadline<T>(context: Partial<RemainingTime> | undefined, work: () => T): T {
  const remaining = context?.getRemainingTimeInMillis;
  if (typeof remaining !== 'function') return work();
  return invocation.run({ getRemainingTimeInMillis: () => remaining.call(context) }, work);
}

/** The milliseconds a model call may take now; undefined outside an invocation with a context. */
export function modelCallTimeLimitMs(): number | undefined {
  const context = invocation.getStore();
  return context ? context.getRemainingTimeInMillis() - COMMIT_MARGIN_MS : undefined;
}
