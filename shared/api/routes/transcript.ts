/**
 * `GET /v1/runs/{id}/transcript`, a page at a time: whole messages up to the page's byte bound, or one part of
 * a message larger than a page (shared/runs/transcript-page.ts). The token names where the next page starts,
 * as a key of the run's own messages: `MSG#<seq>`, or `MSG#<seq>@<part>` inside a message sent in parts. The
 * parts after a message's first come from what the container cut for it (recent-message-parts.ts) when it
 * still holds them, else from a read of that message.
 */

import { splitMessage } from '../../runs/message-parts.ts';
import { recentMessageParts } from '../../runs/recent-message-parts.ts';
import {
  partPage,
  TRANSCRIPT_PAGE_BYTES,
  type TranscriptCursor,
  type TranscriptPage,
  transcriptPage,
} from '../../runs/transcript-page.ts';
import type { TranscriptMessage } from '../../schemas/message.ts';
import { decodeToken, encodeToken } from '../../store/index.ts';
import type { ApiDeps } from '../deps.ts';
import { invalid } from '../errors.ts';
import { checkedToken, tokenShapes } from '../pagination.ts';

/** Without `limit`, a page is bounded by bytes alone: more messages than any run has turns (maxTurns ≤ 200). */
const UNLIMITED_MESSAGES = 1000;
const CURSOR_SK = /^MSG#(\d{6})(?:@(\d{1,5}))?$/;

function cursorOf(runId: string, token: string | undefined): TranscriptCursor {
  const checked = checkedToken(token, tokenShapes.transcript(runId));
  if (checked === undefined) return { seq: 0 };
  const match = CURSOR_SK.exec(String(decodeToken(checked)?.sk));
  if (!match) throw invalid([{ path: 'nextToken', message: 'is not a token this listing issued' }]);
  return { seq: Number(match[1]), ...(match[2] !== undefined ? { part: Number(match[2]) } : {}) };
}

const tokenOf = (runId: string, next: TranscriptCursor) =>
  encodeToken({
    pk: `RUN#${runId}`,
    sk: `MSG#${String(next.seq).padStart(6, '0')}${next.part === undefined ? '' : `@${next.part}`}`,
  });

/** The page of `runId`'s transcript the query asks for (the run is the caller's: checked before). */
export async function readTranscriptPage(
  deps: ApiDeps,
  runId: string,
  query: { limit?: number | undefined; nextToken?: string | undefined },
): Promise<{ runId: string } & Omit<TranscriptPage, 'next'> & { nextToken?: string }> {
  const from = cursorOf(runId, query.nextToken);
  const limit = query.limit ?? UNLIMITED_MESSAGES;
  const recent = recentMessageParts(deps.store);
  const kept = from.part === undefined ? undefined : recent.get(runId, from.seq);
  // A later part of the message this container cut last, unless it is the last part of a message not yet
  // followed: whether one follows now takes a read.
  if (kept && from.part !== undefined && (from.part + 1 < kept.parts.length || kept.followed))
    return answer(runId, partPage(kept.parts, from.part, kept.followed));
  const range = await deps.store.readMessageRange(runId, {
    seq: from.seq,
    // A message part's page needs only that message.
    count: from.part === undefined ? limit : 1,
    bytes: TRANSCRIPT_PAGE_BYTES,
  });
  const followed = range.messages.length > 1 || range.more;
  const split = (message: TranscriptMessage, bound: number) => {
    const parts = splitMessage(message, bound);
    recent.remember(runId, message.seq, parts, followed);
    return parts;
  };
  return answer(runId, transcriptPage(range.messages, from, { limit, more: range.more, split }));
}

function answer(
  runId: string,
  { next, ...page }: TranscriptPage,
): { runId: string } & Omit<TranscriptPage, 'next'> & { nextToken?: string } {
  const nextToken = next ? tokenOf(runId, next) : undefined;
  return { runId, ...page, ...(nextToken ? { nextToken } : {}) };
}
