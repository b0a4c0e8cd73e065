/** Tool outcomes shared by the HTTP actions: success, failure, and egress refusals as model-readable text. */
import type { ToolOutcome } from '../core/ports.ts';
import { unknownOutcome } from '../core/uncertain.ts';
import { EgressError } from '../egress/index.ts';

/** A successful tool result. */
export const succeeded = (content: string): ToolOutcome => ({ content, isError: false });
/** A failed tool result (the model reads it; failures are data). */
export const failed = (content: string): ToolOutcome => ({ content, isError: true });

/**
 * Methods whose requests are safe (RFC 9110 §9.2.1): a read that got no complete answer has no effect to
 * be uncertain about, so it is an ordinary failure. Every other method that was sent is "outcome unknown".
 */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * An egress refusal or limit as a tool result (the guard's messages name hosts, never credentials or
 * paths). With `hideDetail` only the reason is given: for destinations whose URL is itself a secret.
 * A request that never left (refused by the guard, DNS failure, no connection) is a plain failure; one that
 * was sent with an unsafe method and then timed out, was reset, answered too much or answered with a
 * redirect that was not followed (the target got it: a 303 after creating an order) is "outcome unknown".
 * Anything that is not an egress error is rethrown for the ledger to record as an action failure.
 */
export function egressFailure(error: unknown, options: { hideDetail?: boolean } = {}): ToolOutcome {
  if (!(error instanceof EgressError)) throw error;
  const detail = options.hideDetail ? '' : ` (${error.message})`;
  const { delivery } = error;
  if (!delivery.sent) return failed(`The request was not sent: ${error.reason}${detail}.`);
  const method = delivery.method;
  const safe = SAFE_METHODS.has(method.toUpperCase());
  if (REDIRECT_REASONS.has(error.reason)) {
    const what = `${method} request was sent to its target and answered with a redirect that was not followed`;
    return safe
      ? failed(`The ${what}: ${error.reason}${detail}.`)
      : unknownOutcome(`the ${what}: ${error.reason}${detail}`);
  }
  if (safe)
    return failed(`The ${method} request was sent but got no complete answer: ${error.reason}${detail}.`);
  return unknownOutcome(
    `the ${method} request was sent, then failed before a complete answer came back: ${error.reason}${detail}`,
  );
}

/** Refusals of a redirect the target answered with: the request itself reached the target. */
const REDIRECT_REASONS: ReadonlySet<string> = new Set([
  'redirect_off_origin',
  'too_many_redirects',
  'invalid_redirect',
]);
