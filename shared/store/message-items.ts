/**
 * Transcript messages as items. A message that fits in one item is stored as it always was (`MSG#<seq>`).
 * A larger one (many tool results, a long model answer) is spread over a head item and continuation items
 * `MSG#<seq>#<part>` that sort right after it; the head records how many parts follow. Blocks are kept as
 * maps, not serialized, so a string costs its UTF-8 bytes and nothing more (no JSON escaping). A block too
 * large for the room left is cut into a fragment marked `more: true` and a `{ type: 'continued', text }`
 * block that opens the next part; reading joins them back (message-assembly.ts).
 * Item size: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
 */
import { utf8PrefixUnits } from '../core/byte-caps.ts';
import { DYNAMO_ITEM_LIMIT_BYTES, itemBytes, valueBytes } from '../core/item-size.ts';
import { MessageTooLargeError } from '../core/store-errors.ts';
import type { TranscriptMessage } from '../schemas/message.ts';
import { keys } from './keys.ts';

/** What one message item is filled up to: under the 400 KB limit, with room for the estimate's slack. */
export const MESSAGE_ITEM_BUDGET_BYTES = 380_000;
/** A fragment smaller than this is not worth cutting: the block moves to the next part whole. */
export const MIN_FRAGMENT_BYTES = 1024;

type StoredBlock = Record<string, unknown>;

/** The string field a block can be cut along, if any. */
export function splittableField(block: StoredBlock): string | undefined {
  switch (block.type) {
    case 'text':
    case 'continued':
      return 'text';
    case 'tool_result':
      return 'content';
    case 'thinking':
      return 'thinking';
    case 'redacted_thinking':
      return 'data';
    case 'tool_use':
      return 'inputJson' in block ? 'inputJson' : undefined;
    default:
      return undefined;
  }
}

const elementBytes = (block: StoredBlock) => 1 + valueBytes(block);

type Part = { item: Record<string, unknown>; blocks: StoredBlock[]; used: number };

/** The items that store `message`, head first; every one within `MESSAGE_ITEM_BUDGET_BYTES`. */
export function messageItems(message: TranscriptMessage): Record<string, unknown>[] {
  const { content, ...fields } = message;
  const open = (item: Record<string, unknown>): Part => ({
    item,
    blocks: [],
    // Sized with an empty content list and the largest `parts` marker it could get.
    used: itemBytes({ ...item, content: [], parts: 9999 }),
  });
  const parts: Part[] = [open({ ...keys.message(message.runId, message.seq), ...fields })];
  const nextPart = (): Part => {
    const part = open({
      ...keys.messagePart(message.runId, message.seq, parts.length),
      runId: message.runId,
      seq: message.seq,
      part: parts.length,
    });
    parts.push(part);
    return part;
  };
  const emptyPartRoom = MESSAGE_ITEM_BUDGET_BYTES - open(keys.messagePart('x', 0, 1)).used;
  let current = parts[0]!;
  for (const block of content) {
    let pending: StoredBlock = { ...block };
    for (;;) {
      const size = elementBytes(pending);
      if (current.used + size <= MESSAGE_ITEM_BUDGET_BYTES) {
        current.blocks.push(pending);
        current.used += size;
        break;
      }
      // A tool_use too large for any item travels as JSON text, which can be cut like any string.
      if (pending.type === 'tool_use' && 'input' in pending && size > emptyPartRoom) {
        const { input, ...rest } = pending;
        pending = { ...rest, inputJson: JSON.stringify(input ?? null) };
        continue;
      }
      const field = splittableField(pending);
      const room =
        MESSAGE_ITEM_BUDGET_BYTES -
        current.used -
        elementBytes({ ...pending, [field ?? '']: '', more: true });
      if (field !== undefined && room >= MIN_FRAGMENT_BYTES) {
        const value = String(pending[field]);
        const cut = utf8PrefixUnits(value, room);
        current.blocks.push({ ...pending, [field]: value.slice(0, cut), more: true });
        current.used += elementBytes(current.blocks.at(-1)!);
        pending = { type: 'continued', text: value.slice(cut) };
        current = nextPart();
        continue;
      }
      if (current.blocks.length === 0 && current !== parts[0]) {
        throw new MessageTooLargeError(
          message.runId,
          message.seq,
          `a ${String(pending.type)} block of ${size} bytes fits in no item`,
        );
      }
      current = nextPart();
    }
  }
  const items: Record<string, unknown>[] = parts.map((part) => ({ ...part.item, content: part.blocks }));
  if (items.length > 1) items[0]!.parts = items.length - 1;
  for (const item of items) {
    if (itemBytes(item) > DYNAMO_ITEM_LIMIT_BYTES) {
      throw new MessageTooLargeError(message.runId, message.seq, 'an item exceeds 400 KB');
    }
  }
  return items;
}
