/**
 * The deadline of one model call. The SDK's `timeout` bounds only the wait for response headers: it clears
 * its timer once they arrive (`timedFetch` in @anthropic-ai/sdk's client.js), so a stream that keeps
 * trickling events would outlive it, and Lambda would end the invocation at its own timeout
 * (https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html) as `Sandbox.Timedout`, with
 * nothing committed. An `AbortSignal` passed as the request's `signal` aborts the whole call, body included
 * (the SDK links it to its own controller), so the call ends with a classified `ModelConnectionError` while
 * the invocation still has time to record it.
 */
import { ModelConnectionError } from './errors.ts';

export type CallDeadline = {
  /** Aborts the call when its time is up. */
  signal: AbortSignal;
  /** The error to throw instead of whatever the SDK threw, once the deadline has passed; else undefined. */
  expired(): ModelConnectionError | undefined;
  /** Clears the timer (the call ended first). */
  clear(): void;
};

/**
 * A deadline `limitMs` from now: the sooner of the adapter's timeout and what the invocation still gives the
 * call. A limit of 0 or less is already expired: the call is not sent.
 */
export function callDeadline(limitMs: number): CallDeadline {
  const controller = new AbortController();
  const ms = Math.max(0, Math.floor(limitMs));
  const error = () =>
    new ModelConnectionError(
      ms === 0
        ? 'model call not sent: no time was left for it in this invocation'
        : `model call did not finish within its ${ms} ms deadline (aborted, the response may be partly billed)`,
    );
  const timer = ms === 0 ? undefined : setTimeout(() => controller.abort(), ms);
  if (ms === 0) controller.abort();
  return {
    signal: controller.signal,
    expired: () => (controller.signal.aborted ? error() : undefined),
    clear: () => clearTimeout(timer),
  };
}
