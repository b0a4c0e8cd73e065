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
 * was sent with an unsafe method and then timed out, was reset or answered too much is "outcome unknown".
 * Anything that is not an egress error is rethrown for the ledger to record as an action failure.
 */
export function egressFailure(error: unknown, options: { hideDetail?: boolean } = {}): ToolOutcome {
  if (!(error instanceof EgressError)) throw error;
  const detail = options.hideDetail ? '' : ` (${error.message})`;
  const { delivery } = error;
  if (error.reason === 'redirect_off_origin') {
    return failed(
      `The request was answered with a redirect that was not followed, so nothing was sent to its target: ${error.reason}${detail}.`,
    );
  }
  if (!delivery.sent) return failed(`The request was not sent: ${error.reason}${detail}.`);
  if (SAFE_METHODS.has(delivery.method.toUpperCase())) {
    return failed(
      `The ${delivery.method} request was sent but got no complete answer: ${error.reason}${detail}.`,
    );
  }
  return unknownOutcome(
    `the ${delivery.method} request was sent, then failed before a complete answer came back: ${error.reason}${detail}`,
  );
}
