/** Tool outcomes shared by the HTTP actions: success, failure, and egress refusals as model-readable text. */
import type { ToolOutcome } from '../core/ports.ts';
import { EgressError } from '../egress/index.ts';

/** A successful tool result. */
export const succeeded = (content: string): ToolOutcome => ({ content, isError: false });
/** A failed tool result (the model reads it; failures are data). */
export const failed = (content: string): ToolOutcome => ({ content, isError: true });

/**
 * An egress refusal or limit as a tool result (the guard's messages name hosts, never credentials or
 * paths). With `hideDetail` only the reason is given: for destinations whose URL is itself a secret.
 * Anything that is not an egress error is rethrown for the ledger to record as an action failure.
 */
export function egressFailure(error: unknown, options: { hideDetail?: boolean } = {}): ToolOutcome {
  if (!(error instanceof EgressError)) throw error;
  const detail = options.hideDetail ? '' : ` (${error.message})`;
  return failed(`The request was not completed: ${error.reason}${detail}.`);
}
