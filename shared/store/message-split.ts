/**
 * The one way a transcript message too large for its container is cut into parts, used for the store's items
 * (message-items.ts: DynamoDB item bytes) and the API's transcript pages (runs/message-parts.ts: JSON bytes as
 * Lambda returns them); only the sizing differs. Blocks are kept whole where they fit; a block that does not
 * is cut along its string field into a fragment marked `more: true`, and the rest opens the next part as
 * `{ type: 'continued', text }`; a `tool_use` too large for a whole part travels as `inputJson` (its input as
 * JSON text), which can be cut like any string. Readers join the fragments back the one way message-join.ts
 * does (message-assembly.ts, joinMessageParts).
 */

/** A fragment smaller than this is not worth cutting: the block moves to the next part whole. */
export const MIN_FRAGMENT_BYTES = 1024;

export type SplitBlock = Record<string, unknown>;

/** The string field a block can be cut along, if any. */
export function splittableField(block: SplitBlock): string | undefined {
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

/** How the container counts: the only thing that differs between the store's items and the API's pages. */
export type PartSizing = {
  /** What `block` costs in a part's list, its separator included. */
  blockBytes: (block: SplitBlock) => number;
  /** The longest prefix of `value` (UTF-16 units, never inside a character) costing at most `bytes`. */
  prefixUnits: (value: string, bytes: number) => number;
  /** The bytes part `index` (0 is the head) has for its blocks. */
  room: (index: number) => number;
  /** A `tool_use` costing more than this fits in no part whole: it travels as `inputJson`. */
  wholeRoom: number;
  /** The error for a block that fits in no part, not even cut. */
  tooLarge: (block: SplitBlock, bytes: number) => Error;
};

/** `content` as the block lists of consecutive parts, each within its `room`; one list if all fit. */
export function splitBlocks(content: readonly SplitBlock[], sizing: PartSizing): SplitBlock[][] {
  const parts: SplitBlock[][] = [[]];
  let current = parts[0]!;
  let used = 0;
  let room = sizing.room(0);
  const nextPart = () => {
    current = [];
    parts.push(current);
    used = 0;
    room = sizing.room(parts.length - 1);
  };
  for (const block of content) {
    let pending: SplitBlock = { ...block };
    for (;;) {
      const size = sizing.blockBytes(pending);
      if (used + size <= room) {
        current.push(pending);
        used += size;
        break;
      }
      if (pending.type === 'tool_use' && 'input' in pending && size > sizing.wholeRoom) {
        const { input, ...rest } = pending;
        pending = { ...rest, inputJson: JSON.stringify(input ?? null) };
        continue;
      }
      const field = splittableField(pending);
      const space = room - used - sizing.blockBytes({ ...pending, [field ?? '']: '', more: true });
      if (field !== undefined && space >= MIN_FRAGMENT_BYTES) {
        const value = String(pending[field]);
        const cut = sizing.prefixUnits(value, space);
        current.push({ ...pending, [field]: value.slice(0, cut), more: true });
        pending = { type: 'continued', text: value.slice(cut) };
        nextPart();
        continue;
      }
      // An empty head may have had little room beside the message's fields; an empty later part is all there is.
      if (current.length === 0 && parts.length > 1) throw sizing.tooLarge(pending, size);
      nextPart();
    }
  }
  return parts;
}
