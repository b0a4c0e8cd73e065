/**
 * One page of a run's transcript, bounded in bytes as the API's Lambda returns it. A synchronous Lambda
 * response is at most 6 MB ("For synchronous invocations, the maximum payload size is 6 MB",
 * https://docs.aws.amazon.com/lambda/latest/dg/API_Invoke.html, and
 * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html), and a run's transcript can pass
 * that (2.5 MB per model answer, up to 128 tool results of 50 KB per message: shared/core/transcript-limits.ts).
 *
 * Sizes are counted as the response carries them: the page is JSON, and API Gateway's Lambda integration
 * carries that JSON as the `body` string of the function's JSON result, so every character is counted
 * escaped twice (a `"` costs 4 bytes, a control character 7). A page holds whole messages while they fit
 * in `TRANSCRIPT_PAGE_BYTES`; a message that alone does not fit is sent in parts (message-parts.ts).
 */
import type { TranscriptMessage } from '../schemas/message.ts';
import { type MessagePart, splitMessage } from './message-parts.ts';
import { encodedBytes } from './response-bytes.ts';

/**
 * What one page's messages may cost, escaped as sent: a sixth of Lambda's 6 MB, so the page also fits
 * once more escaped as HTML by the console (at most 6 bytes per character) with room for the rest of it.
 */
export const TRANSCRIPT_PAGE_BYTES = 1_000_000;
/** Messages per page when the caller names no `limit`. */
export const TRANSCRIPT_PAGE_MESSAGES = 100;

/** Where a page starts: a message, or one part of a message too large for a page. */
export type TranscriptCursor = { seq: number; part?: number };

export type TranscriptPage = {
  messages: TranscriptMessage[];
  /** One part of a message too large for any page; then `messages` is empty. */
  messagePart?: MessagePart;
  next?: TranscriptCursor;
};

/**
 * The page starting at `from` over `messages` (the run's messages from `from.seq` on, in order; `more`: the
 * run has messages after the last one given). Always makes progress: the first message, or its part.
 */
export function transcriptPage(
  messages: readonly TranscriptMessage[],
  from: TranscriptCursor,
  options: {
    limit: number;
    more: boolean;
    bytes?: number;
    /** How a message too large for a page is cut (the route keeps what it cut: recent-message-parts.ts). */
    split?: (message: TranscriptMessage, bound: number) => readonly MessagePart[];
  },
): TranscriptPage {
  const bound = options.bytes ?? TRANSCRIPT_PAGE_BYTES;
  const first = messages[0];
  if (!first) return { messages: [] };
  if (from.part !== undefined || encodedBytes(first) > bound) {
    const parts = (options.split ?? splitMessage)(first, bound);
    return partPage(parts, from.part ?? 0, messages.length > 1 || options.more);
  }
  const page: TranscriptMessage[] = [];
  let used = 0;
  for (const message of messages) {
    const size = encodedBytes(message) + 1;
    if (page.length >= options.limit || used + size > bound) break;
    page.push(message);
    used += size;
  }
  const last = page.at(-1)!;
  const next = page.length < messages.length || options.more ? { seq: last.seq + 1 } : undefined;
  return { messages: page, ...(next ? { next } : {}) };
}

/**
 * The page of part `index` (at most the last) of a message sent as `parts`; after its last part the next page
 * starts at the following message when `followed` (messages come after it), else the listing ends.
 */
export function partPage(parts: readonly MessagePart[], index: number, followed: boolean): TranscriptPage {
  const at = Math.min(index, parts.length - 1);
  const part = parts[at]!;
  const next: TranscriptCursor | undefined =
    at + 1 < parts.length ? { seq: part.seq, part: at + 1 } : followed ? { seq: part.seq + 1 } : undefined;
  return { messages: [], messagePart: part, ...(next ? { next } : {}) };
}
