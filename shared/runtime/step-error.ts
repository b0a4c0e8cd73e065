import { cutText } from '../core/byte-caps.ts';

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

/**
 * The message of a Catch's `Cause` (JSON with `errorMessage` for a Lambda error, else the text itself, cut), as
 * well-formed text: the JSON can carry a lone surrogate as an escape, which no record could hold (byte-caps.ts).
 */
export function causeMessage(cause: string | undefined): string {
  if (!cause) return 'the run failed';
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') return parsed.errorMessage.toWellFormed();
  } catch {}
  return cutText(cause, 1000);
}
