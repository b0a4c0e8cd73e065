/**
 * A transcript message too large for one page of `GET /v1/runs/{id}/transcript` (transcript-page.ts) is
 * sent as parts, each within the page's byte bound, cut by the store's splitter (shared/store/message-split.ts)
 * sized in bytes as sent instead of item bytes: blocks are kept whole where they fit; a block
 * that does not is cut along its text into a fragment marked `more: true`, and the rest opens the next part
 * as `{ type: 'continued', text }`; a `tool_use` too large for a part travels as `inputJson` (its input as
 * JSON text), which can be cut like any string. `joinMessageParts` puts the message back exactly.
 */
import type { TranscriptMessage } from '../schemas/message.ts';
import { joinBlock, withToolInputs } from '../store/message-join.ts';
import { splitBlocks } from '../store/message-split.ts';
import { encodedBytes, encodedCharBytes } from './response-bytes.ts';

export type PartBlock = Record<string, unknown> & { type: string };

/** One part of a message: the message's fields, which part this is (from 0) of how many, and its blocks. */
export type MessagePart = Omit<TranscriptMessage, 'content'> & {
  part: number;
  parts: number;
  content: PartBlock[];
};

/** The longest prefix of `value` (in UTF-16 units, never inside a character) costing at most `bytes`. */
function prefixWithin(value: string, bytes: number): number {
  let used = 0;
  let units = 0;
  for (const char of value) {
    used += encodedCharBytes(char);
    if (used > bytes) break;
    units += char.length;
  }
  return units;
}

/** `message` as parts of at most `bound` bytes each, as sent (response-bytes.ts); one part if it fits. */
export function splitMessage(message: TranscriptMessage, bound: number): MessagePart[] {
  const { content, ...fields } = message;
  // Sized with the largest part numbers it could carry.
  const room = bound - encodedBytes({ ...fields, part: 99_999, parts: 99_999, content: [] });
  const parts = splitBlocks(content, {
    blockBytes: (block) => encodedBytes(block) + 1,
    prefixUnits: prefixWithin,
    room: () => room,
    wholeRoom: room,
    tooLarge: (block) =>
      new RangeError(`message ${message.seq}: a ${String(block.type)} block cannot be cut to ${bound} bytes`),
  }) as PartBlock[][];
  return parts.map((blocks, part) => ({ ...fields, part, parts: parts.length, content: blocks }));
}

/** The message `parts` (all of them, in order) were cut from; a missing or foreign part is an error. */
export function joinMessageParts(parts: readonly MessagePart[]): TranscriptMessage {
  const head = parts[0];
  if (!head || parts.length !== head.parts || parts.some((p, i) => p.part !== i || p.seq !== head.seq))
    throw new RangeError(`message parts are incomplete or out of order (seq ${head?.seq})`);
  const content: PartBlock[] = [];
  for (const raw of parts.flatMap((part) => part.content)) {
    const problem = joinBlock(content, raw);
    if (problem) throw new RangeError(problem);
  }
  const { part: _part, parts: _parts, content: _content, ...fields } = head;
  const blocks = withToolInputs(content, (cause) => {
    throw cause;
  });
  return { ...fields, content: blocks as TranscriptMessage['content'] };
}
