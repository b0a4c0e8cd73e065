import { cutText } from './byte-caps.ts';

/**
 * The message of a Step Functions Catch's `Cause` (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html):
 * a Lambda error's is JSON whose `errorMessage` is kept (never its stack); any other is the text itself, cut to
 * 1,000 characters. Well-formed either way: the JSON can carry a lone surrogate as an escape, which no record
 * could hold (byte-caps.ts). `fallback` when there is no cause. Not cut here: a run or a step stores it through
 * `storedError` (stored-error.ts), which bounds it, and a graph run's halt quotes the step's stored message.
 */
export function catchCauseMessage(cause: string | undefined, fallback: string): string {
  if (!cause) return fallback;
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') return parsed.errorMessage.toWellFormed();
  } catch {}
  return cutText(cause, 1000);
}
