/**
 * The one splitter behind the store's message items and the API's transcript parts, with a toy sizing (a
 * block costs its JSON length, a character one byte): only the sizing differs between its two users.
 */
import { describe, expect, it } from 'vitest';
import { MIN_FRAGMENT_BYTES, type PartSizing, splitBlocks } from '../../shared/store/message-split.ts';

const toy = (room: (index: number) => number, wholeRoom = room(1)): PartSizing => ({
  blockBytes: (block) => JSON.stringify(block).length,
  prefixUnits: (value, bytes) => Math.min(value.length, bytes),
  room,
  wholeRoom,
  tooLarge: (block, bytes) => new RangeError(`${String(block.type)} of ${bytes} fits nowhere`),
});

describe('Function: splitBlocks', () => {
  it('keeps blocks whole where they fit and cuts one along its field, the rest opening the next part', () => {
    // Prepare
    const long = 'x'.repeat(3 * MIN_FRAGMENT_BYTES);
    const content = [
      { type: 'text', text: 'short' },
      { type: 'tool_result', tool_use_id: 't', content: long },
    ];

    // Act
    const parts = splitBlocks(
      content,
      toy(() => 2 * MIN_FRAGMENT_BYTES),
    );

    // Assess: the join of the fragments is the block's field, and every part is within its room.
    expect(parts[0]![0]).toEqual({ type: 'text', text: 'short' });
    expect(parts[0]![1]).toMatchObject({ type: 'tool_result', tool_use_id: 't', more: true });
    expect(
      parts
        .slice(1)
        .flat()
        .every((block) => block.type === 'continued'),
    ).toBe(true);
    const rejoined = parts
      .flat()
      .slice(1)
      .map((block) => String(block.type === 'continued' ? block.text : block.content))
      .join('');
    expect(rejoined).toBe(long);
    for (const blocks of parts)
      expect(blocks.reduce((sum, block) => sum + JSON.stringify(block).length, 0)).toBeLessThanOrEqual(
        2 * MIN_FRAGMENT_BYTES,
      );
  });

  it('sends a tool_use larger than a whole part as inputJson text, cut like any string', () => {
    const input = { query: 'q'.repeat(3 * MIN_FRAGMENT_BYTES) };
    const parts = splitBlocks(
      [{ type: 'tool_use', id: 'u', name: 'search', input }],
      toy(() => 2 * MIN_FRAGMENT_BYTES),
    );
    expect(parts[0]![0]).toMatchObject({ type: 'tool_use', id: 'u', more: true });
    expect(parts[0]![0]).not.toHaveProperty('input');
    const json = parts
      .flat()
      .map((block) => String(block.inputJson ?? block.text))
      .join('');
    expect(JSON.parse(json)).toEqual(input);
  });

  it('passes over a head too full for a block, and refuses one that fits in no later part', () => {
    const block = { type: 'image', data: 'd'.repeat(2 * MIN_FRAGMENT_BYTES) };
    const roomy = splitBlocks(
      [block],
      toy((index) => (index === 0 ? 10 : 4 * MIN_FRAGMENT_BYTES)),
    );
    expect(roomy).toEqual([[], [block]]);
    expect(() =>
      splitBlocks(
        [block],
        toy(() => MIN_FRAGMENT_BYTES),
      ),
    ).toThrow(new RangeError(`image of ${JSON.stringify(block).length} fits nowhere`));
  });
});
