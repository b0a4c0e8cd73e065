import { catchCauseMessage } from '../core/catch-cause.ts';

/**
 * A Step Functions Catch's error (`{ Error, Cause }` at `$.error`) as the run's error: Lambda errors arrive
 * with a JSON `Cause`; its message is kept, never its stack.
 */
export function stepErrorOf(error: { Error?: string | undefined; Cause?: string | undefined } | undefined): {
  name: string;
  message: string;
} {
  return { name: error?.Error ?? 'Error', message: causeMessage(error?.Cause) };
}

/** The message of a Catch's `Cause` as the run's error (catch-cause.ts). */
export const causeMessage = (cause: string | undefined): string => catchCauseMessage(cause, 'the run failed');
