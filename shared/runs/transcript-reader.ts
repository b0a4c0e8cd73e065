/**
 * A client's read of a whole transcript over the paged API (GET /v1/runs/{id}/transcript): follows
 * `nextToken`, and joins the parts of a message that came a part a page (message-parts.ts).
 */
import type { TranscriptMessage } from '../schemas/message.ts';
import { joinMessageParts, type MessagePart } from './message-parts.ts';
import { walkPages } from './page-walk.ts';

export type TranscriptPageBody = {
  messages: TranscriptMessage[];
  messagePart?: MessagePart;
  nextToken?: string;
};

/** Every message of the run, in order; `get` fetches one page (the path's query included). */
export async function readWholeTranscript(
  runId: string,
  get: (path: string) => Promise<TranscriptPageBody>,
): Promise<TranscriptMessage[]> {
  const messages: TranscriptMessage[] = [];
  let parts: MessagePart[] = [];
  await walkPages(`/v1/runs/${encodeURIComponent(runId)}/transcript`, get, (page) => {
    messages.push(...page.messages);
    if (page.messagePart) {
      parts.push(page.messagePart);
      if (parts.length === page.messagePart.parts) {
        messages.push(joinMessageParts(parts));
        parts = [];
      }
    }
  });
  if (parts.length > 0)
    throw new RangeError(`message ${parts[0]?.seq}: the transcript ended inside its parts`);
  return messages;
}
