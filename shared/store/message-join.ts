/**
 * The one way cut blocks are joined back (message-split.ts cuts them): the store's items (message-assembly.ts)
 * and the API's transcript parts (runs/message-parts.ts). A `continued` block extends the cut block before it;
 * a `tool_use` that travelled as `inputJson` gets its input back. Each caller says where a problem is, with its
 * own error: these return the problem, or throw the caller's.
 */
import { type SplitBlock, splittableField } from './message-split.ts';

/** Adds `raw` to `blocks` (a copy, or the text it continues); why it cannot follow them, if it cannot. */
export function joinBlock(blocks: SplitBlock[], raw: SplitBlock): string | undefined {
  const block = { ...raw };
  const last = blocks.at(-1);
  if (block.type === 'continued') {
    const field = last?.more === true ? splittableField(last) : undefined;
    if (!last || field === undefined) return 'a continued fragment follows no cut block';
    last[field] = `${String(last[field])}${String(block.text)}`;
    if (block.more === true) last.more = true;
    else delete last.more;
    return undefined;
  }
  if (last?.more === true) return 'a cut block was not continued';
  blocks.push(block);
  return undefined;
}

/** Why `blocks` cannot end a message (its last block cut and never continued), if they cannot. */
export const unfinished = (blocks: readonly SplitBlock[]): string | undefined =>
  blocks.at(-1)?.more === true ? 'the last block was cut and never continued' : undefined;

/** `blocks` with each `inputJson` tool_use given its input back; `invalid` throws for input that is not JSON. */
export function withToolInputs(
  blocks: readonly SplitBlock[],
  invalid: (cause: unknown) => never,
): SplitBlock[] {
  return blocks.map((block) => {
    if (block.type !== 'tool_use' || !('inputJson' in block)) return block;
    const { inputJson, ...rest } = block;
    try {
      return { ...rest, input: JSON.parse(String(inputJson)) as unknown };
    } catch (cause) {
      return invalid(cause);
    }
  });
}
