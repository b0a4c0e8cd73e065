import { describe, expect, it } from 'vitest';
import { joinMessageParts, splitMessage } from '../../shared/runs/message-parts.ts';
import { encodedBytes, encodedCharBytes } from '../../shared/runs/response-bytes.ts';
import { transcriptPage } from '../../shared/runs/transcript-page.ts';
import type { TranscriptMessage } from '../../shared/schemas/message.ts';

const message = (seq: number, content: TranscriptMessage['content']): TranscriptMessage => ({
  schemaVersion: 1,
  runId: 'run_abcdef',
  seq,
  turn: seq,
  role: seq % 2 === 0 ? 'user' : 'assistant',
  content,
  createdAt: '2026-12-02T00:00:00.000Z',
});

/** Text that costs far more escaped than it weighs: quotes, backslashes, control characters, emoji. */
const hostile = (chars: number) => '"\\\u0001\n€😀a'.repeat(Math.ceil(chars / 8)).slice(0, chars);

describe('Function: encodedBytes', () => {
  it.each(['a', '"', '\\', '\u0001', '\n', '€', '😀', '\ud800', '\u2028'])(
    'counts %j as it costs inside the Lambda result',
    (char) => {
      expect(encodedCharBytes(char)).toBe(Buffer.byteLength(JSON.stringify(JSON.stringify(char))) - 6);
    },
  );
});

describe('Function: splitMessage', () => {
  it('keeps a message that fits as one part', () => {
    const small = message(1, [{ type: 'text', text: 'hello' }]);
    const parts = splitMessage(small, 10_000);
    expect(parts).toHaveLength(1);
    expect(joinMessageParts(parts)).toEqual(small);
  });

  it.each([
    ['a long answer of hostile text', [{ type: 'text' as const, text: hostile(600_000) }]],
    [
      '128 tool results of 50 KB',
      Array.from({ length: 128 }, (_, i) => ({
        type: 'tool_result' as const,
        tool_use_id: `toolu_${i}`,
        content: `{"row":"${'x'.repeat(49_980)}"}`,
      })),
    ],
    [
      'a tool call whose input is larger than a part',
      [
        { type: 'thinking' as const, thinking: hostile(50_000), signature: 'sig' },
        { type: 'tool_use' as const, id: 'toolu_1', name: 'notes_put', input: { value: hostile(300_000) } },
      ],
    ],
  ])('cuts %s into parts within the bound, and joins them back exactly', (_name, content) => {
    const big = message(3, content as TranscriptMessage['content']);
    const bound = 200_000;
    const parts = splitMessage(big, bound);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(encodedBytes(part)).toBeLessThanOrEqual(bound);
    expect(parts.map((p) => [p.part, p.parts])).toEqual(parts.map((_, i) => [i, parts.length]));
    expect(joinMessageParts(parts)).toEqual(big);
  });

  it('refuses to join parts with one missing', () => {
    const parts = splitMessage(message(3, [{ type: 'text', text: hostile(100_000) }]), 50_000);
    expect(() => joinMessageParts(parts.slice(1))).toThrow(RangeError);
    expect(() => joinMessageParts(parts.slice(0, -1))).toThrow(RangeError);
  });
});

describe('Function: transcriptPage', () => {
  const messages = Array.from({ length: 10 }, (_, i) =>
    message(i, [{ type: 'text', text: 'x'.repeat(1000) }]),
  );

  it('fills a page with whole messages up to the bound, then names the next', () => {
    const page = transcriptPage(messages, { seq: 0 }, { limit: 100, more: false, bytes: 3500 });
    expect(page.messages.map((m) => m.seq)).toEqual([0, 1]);
    expect(page.next).toEqual({ seq: 2 });
  });

  it('stops at `limit`, and has no next at the end', () => {
    expect(transcriptPage(messages, { seq: 0 }, { limit: 3, more: false }).next).toEqual({ seq: 3 });
    const last = transcriptPage(messages.slice(8), { seq: 8 }, { limit: 100, more: false });
    expect(last.messages.map((m) => m.seq)).toEqual([8, 9]);
    expect(last.next).toBeUndefined();
  });

  it('sends a message larger than a page a part at a time, then the message after it', () => {
    const big = message(4, [{ type: 'text', text: 'y'.repeat(10_000) }]);
    const after = message(5, [{ type: 'text', text: 'z' }]);
    const first = transcriptPage([big, after], { seq: 4 }, { limit: 100, more: false, bytes: 4000 });
    expect(first.messages).toEqual([]);
    expect(first.messagePart).toMatchObject({ seq: 4, part: 0 });
    const count = first.messagePart!.parts;
    const last = transcriptPage(
      [big, after],
      { seq: 4, part: count - 1 },
      { limit: 100, more: false, bytes: 4000 },
    );
    expect(last.next).toEqual({ seq: 5 });
  });
});
