/**
 * Transcript messages as items. A message that fits in one item is stored as it always was (`MSG#<seq>`).
 * A larger one (many tool results, a long model answer) is spread over a head item and continuation items
 * `MSG#<seq>#<part>` that sort right after it; the head records how many parts follow. Blocks are kept as
 * maps, not serialized, so a string costs its UTF-8 bytes and nothing more (no JSON escaping). A block too
 * large for the room left is cut into a fragment marked `more: true` and a `{ type: 'continued', text }`
 * block that opens the next part (message-split.ts); reading joins them back (message-assembly.ts).
 * Item size: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
 */

import { utf8PrefixUnits } from '../core/byte-caps.ts';
import { DYNAMO_ITEM_LIMIT_BYTES, itemBytes, valueBytes } from '../core/item-size.ts';
import { MAX_VALUE_DEPTH, storableProblems } from '../core/storable.ts';
import { MessageTooLargeError } from '../core/store-errors.ts';
import type { TranscriptMessage } from '../schemas/message.ts';
import { keys } from './keys.ts';
import { type SplitBlock, splitBlocks } from './message-split.ts';

/** What one message item is filled up to: under the 400 KB limit, with room for the estimate's slack. */
export const MESSAGE_ITEM_BUDGET_BYTES = 380_000;
const elementBytes = (block: SplitBlock) => 1 + valueBytes(block);

/**
 * A `tool_use` whose input DynamoDB cannot hold as a map travels as `inputJson`, its input as JSON text, as one
 * too large for a part does (message-split.ts), and is read back the same (message-join.ts). The model writes
 * that input: an empty field name (`{"": 1}`, "Empty attribute name"), a number below 1e-130 ("Number
 * underflow"), nesting past 32 levels (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-data-types),
 * or an integer past 2^53 the document client refuses, made the write of its message fail, and the turn with it.
 */
function storableBlock(block: TranscriptMessage['content'][number]): SplitBlock {
  if (block.type !== 'tool_use') return block;
  if (storableProblems(block.input, { maxDepth: MAX_VALUE_DEPTH }).length === 0) return block;
  const { input, ...rest } = block;
  return { ...rest, inputJson: JSON.stringify(input ?? null) };
}

/** The items that store `message`, head first; every one within `MESSAGE_ITEM_BUDGET_BYTES`. */
export function messageItems(message: TranscriptMessage): Record<string, unknown>[] {
  const { content: blocks, ...fields } = message;
  const content = blocks.map(storableBlock);
  const itemOf = (part: number): Record<string, unknown> =>
    part === 0
      ? { ...keys.message(message.runId, message.seq), ...fields }
      : {
          ...keys.messagePart(message.runId, message.seq, part),
          runId: message.runId,
          seq: message.seq,
          part,
        };
  // Sized with an empty content list and the largest `parts` marker it could get.
  const roomBeside = (item: Record<string, unknown>) =>
    MESSAGE_ITEM_BUDGET_BYTES - itemBytes({ ...item, content: [], parts: 9999 });
  const parts = splitBlocks(content, {
    blockBytes: elementBytes,
    prefixUnits: utf8PrefixUnits,
    room: (part) => roomBeside(itemOf(part)),
    wholeRoom: roomBeside(keys.messagePart('x', 0, 1)),
    tooLarge: (block, size) =>
      new MessageTooLargeError(
        message.runId,
        message.seq,
        `a ${String(block.type)} block of ${size} bytes fits in no item`,
      ),
  });
  const items: Record<string, unknown>[] = parts.map((blocks, part) => ({
    ...itemOf(part),
    content: blocks,
  }));
  if (items.length > 1) items[0]!.parts = items.length - 1;
  for (const item of items) {
    if (itemBytes(item) > DYNAMO_ITEM_LIMIT_BYTES) {
      throw new MessageTooLargeError(message.runId, message.seq, 'an item exceeds 400 KB');
    }
  }
  return items;
}
