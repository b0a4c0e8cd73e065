import { describe, expect, it } from 'vitest';
import { sealAuditEntry } from '../../shared/audit/index.ts';
import { capUtf8, utf8Length } from '../../shared/core/byte-caps.ts';
import { denialText } from '../../shared/core/gate.ts';
import { DYNAMO_ITEM_LIMIT_BYTES, itemBytes } from '../../shared/core/item-size.ts';
import type { ContentBlock } from '../../shared/core/ports.ts';
import { TransactionTooLargeError } from '../../shared/core/store-errors.ts';
import {
  capRefusal,
  capToolResult,
  MAX_ASSISTANT_CONTENT_BYTES,
  MAX_REFUSAL_BYTES,
  MAX_TOOL_RESULT_BYTES,
  MAX_TOOL_USE_ID_BYTES,
  MAX_TOOL_USES_PER_MESSAGE,
  oversizeReason,
} from '../../shared/core/transcript-limits.ts';
import { BudgetSchema } from '../../shared/schemas/budget.ts';
import type { TranscriptMessage } from '../../shared/schemas/message.ts';
import { auditItems } from '../../shared/store/audit-items.ts';
import { assembleMessages } from '../../shared/store/message-assembly.ts';
import { messageItems } from '../../shared/store/message-items.ts';
import {
  assertTransactionFits,
  TRANSACTION_MAX_BYTES,
  TRANSACTION_MAX_ITEMS,
} from '../../shared/store/transaction-limits.ts';
import * as z from '../../shared/zod.ts';

const EURO = '€'; // 1 UTF-16 unit, 3 UTF-8 bytes
const RUN_ID = `run_${'x'.repeat(40)}`;
const AT = '2026-11-30T07:00:00.000Z';

const message = (content: ContentBlock[], role: 'user' | 'assistant' = 'user'): TranscriptMessage => ({
  schemaVersion: 1,
  runId: RUN_ID,
  seq: 7,
  turn: 3,
  role,
  content,
  createdAt: AT,
});

/** The largest tool_use id the core keeps (longer ones end the run, see oversizeReason). */
const longestId = (index: number) =>
  `${String(index).padStart(4, '0')}${'i'.repeat(MAX_TOOL_USE_ID_BYTES - 4)}`;

/** A run item at DynamoDB's own limit: the largest one any commit can carry. */
const LARGEST_RUN_ITEM_BYTES = DYNAMO_ITEM_LIMIT_BYTES;

function auditEntry(type: 'turn_committed' | 'status_changed') {
  return sealAuditEntry(
    {
      schemaVersion: 1,
      owner: 'o'.repeat(128),
      runId: RUN_ID,
      seq: 999_999,
      at: AT,
      type,
      actor: 'system',
      data: { turn: 3, next: 'continue_as_new', from: 'awaiting_approval', to: 'running' },
    },
    '0'.repeat(64),
  );
}

/** The turn commit of a message, as commitTurn builds it: run item, the message's items, two entries (one item). */
function turnCommit(stored: TranscriptMessage) {
  const runItem = { Put: { Item: { pad: 'r'.repeat(LARGEST_RUN_ITEM_BYTES - 3) } } };
  return [
    runItem,
    ...messageItems(stored).map((Item) => ({ Put: { Item } })),
    ...auditItems(RUN_ID, [auditEntry('status_changed'), auditEntry('turn_committed')]).map((Item) => ({
      Put: { Item },
    })),
  ];
}

describe('byte caps', () => {
  it.each([
    ['3-byte characters', EURO.repeat(20_000)],
    ['4-byte characters (surrogate pairs)', '😀'.repeat(20_000)],
    ['mixed widths', `a${'é€😀'.repeat(10_000)}`],
  ])('cuts %s to the byte cap without splitting a character', (_label, text) => {
    const capped = capToolResult(text);
    expect(utf8Length(capped)).toBeLessThanOrEqual(MAX_TOOL_RESULT_BYTES);
    expect(capped).toContain(`[truncated: result exceeded ${MAX_TOOL_RESULT_BYTES} bytes]`);
    // A cut surrogate pair would re-encode to U+FFFD and change the text.
    expect(new TextDecoder().decode(new TextEncoder().encode(capped))).toBe(capped);
    expect(utf8Length(capped)).toBe(new TextEncoder().encode(capped).length);
  });

  it('keeps a result that fits exactly', () => {
    const text = EURO.repeat(MAX_TOOL_RESULT_BYTES / 5);
    expect(capToolResult(text)).toBe(text);
    expect(capUtf8('abc', 3, '!')).toBe('abc');
    expect(capUtf8('abcd', 3, '!')).toBe('ab!');
  });
});

describe('worst-case item sizes from the schema limits', () => {
  const maxCalls =
    (z.toJSONSchema(BudgetSchema.shape.maxToolCallsPerTurn) as { maximum?: number }).maximum ?? Number.NaN;

  /** The largest user message a turn can commit: every answered call at its cap, in 3-byte characters. */
  function worstUserMessage(): TranscriptMessage {
    const content: ContentBlock[] = [];
    for (let index = 0; index < MAX_TOOL_USES_PER_MESSAGE; index++) {
      const dispatched = index < maxCalls;
      content.push({
        type: 'tool_result',
        tool_use_id: longestId(index),
        content: dispatched
          ? capToolResult(EURO.repeat(MAX_TOOL_RESULT_BYTES))
          : capRefusal(denialText({ reason: EURO.repeat(MAX_REFUSAL_BYTES), fault: 'input' })),
        is_error: !dispatched,
      });
    }
    return message(content);
  }

  it('reads the per-turn call limit from the schema', () => {
    expect(maxCalls).toBe(50);
  });

  it('keeps every item of the worst tool-result message under 400 KB', () => {
    const items = messageItems(worstUserMessage());
    expect(items.length).toBeGreaterThan(1);
    for (const item of items) expect(itemBytes(item)).toBeLessThan(DYNAMO_ITEM_LIMIT_BYTES);
  });

  it('keeps the worst turn commit within 100 items and 4 MB', () => {
    const actions = turnCommit(worstUserMessage());
    expect(actions.length).toBeLessThanOrEqual(TRANSACTION_MAX_ITEMS);
    const total = actions.reduce((sum, action) => sum + itemBytes(action.Put.Item), 0);
    expect(total).toBeLessThan(TRANSACTION_MAX_BYTES);
    expect(() => assertTransactionFits(actions)).not.toThrow();
  });

  it('keeps the largest assistant message the core accepts within the item and transaction limits', () => {
    // Just under the cap, as one text block, and as a tool_use input: both are split across items.
    const half = Math.floor(MAX_ASSISTANT_CONTENT_BYTES / 2 / 3) - 100;
    const content: ContentBlock[] = [
      { type: 'text', text: EURO.repeat(half) },
      { type: 'tool_use', id: longestId(0), name: 'n'.repeat(64), input: { body: EURO.repeat(half) } },
    ];
    expect(oversizeReason(content)).toBeUndefined();
    const stored = message(content, 'assistant');
    for (const item of messageItems(stored)) expect(itemBytes(item)).toBeLessThan(DYNAMO_ITEM_LIMIT_BYTES);
    expect(() => assertTransactionFits(turnCommit(stored))).not.toThrow();
  });

  it('refuses to keep an answer over the cap, with too many calls, or with an oversized id', () => {
    expect(oversizeReason([{ type: 'text', text: EURO.repeat(MAX_ASSISTANT_CONTENT_BYTES / 3) }])).toMatch(
      /bytes/,
    );
    const uses = (count: number, id = (i: number) => `t${i}`): ContentBlock[] =>
      Array.from({ length: count }, (_, i) => ({ type: 'tool_use', id: id(i), name: 'x', input: {} }));
    expect(oversizeReason(uses(MAX_TOOL_USES_PER_MESSAGE))).toBeUndefined();
    expect(oversizeReason(uses(MAX_TOOL_USES_PER_MESSAGE + 1))).toMatch(/tool calls/);
    expect(oversizeReason(uses(1, () => 'i'.repeat(MAX_TOOL_USE_ID_BYTES + 1)))).toMatch(/id or name/);
  });
});

describe('message items', () => {
  it.each<[string, ContentBlock[]]>([
    ['a small message', [{ type: 'text', text: 'hello' }]],
    ['one huge text in 3-byte characters', [{ type: 'text', text: EURO.repeat(400_000) }]],
    ['a huge text in 4-byte characters', [{ type: 'text', text: '😀'.repeat(250_000) }]],
    [
      'a huge tool_use input',
      [{ type: 'tool_use', id: 't1', name: 'x', input: { list: Array(50_000).fill({ v: `${EURO}"\\` }) } }],
    ],
    [
      'thinking, redacted thinking and text',
      [
        { type: 'thinking', thinking: 'ü'.repeat(300_000), signature: 'sig' },
        { type: 'redacted_thinking', data: 'Z'.repeat(500_000) },
        { type: 'text', text: 'done' },
      ],
    ],
    [
      'many results of different sizes',
      Array.from({ length: 40 }, (_, i) => ({
        type: 'tool_result' as const,
        tool_use_id: `t${i}`,
        content: EURO.repeat((i * 7919) % 60_000),
        ...(i % 3 === 0 ? { is_error: true } : {}),
      })),
    ],
  ])('stores %s within 400 KB per item and reads it back exactly', (_label, content) => {
    const stored = message(content);
    const items = messageItems(stored);
    for (const item of items) expect(itemBytes(item)).toBeLessThan(DYNAMO_ITEM_LIMIT_BYTES);
    const sorted = [...items].sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
    expect(assembleMessages(sorted)).toEqual([stored]);
  });

  it('names the item when a part is missing, instead of returning half a message', () => {
    const items = messageItems(message([{ type: 'text', text: EURO.repeat(400_000) }]));
    expect(items.length).toBeGreaterThan(2);
    expect(() => assembleMessages([items[0]!, items[2]!])).toThrow(/MSG#000007#0002/);
    expect(() => assembleMessages(items.slice(0, -1))).toThrow(/parts/);
  });
});

describe('transaction limits', () => {
  it('refuses more than 100 items, an item over 400 KB, or more than 4 MB in all', () => {
    const small = { Put: { Item: { pk: 'a' } } };
    expect(() => assertTransactionFits(Array(101).fill(small))).toThrow(TransactionTooLargeError);
    expect(() =>
      assertTransactionFits([{ Put: { Item: { v: 'x'.repeat(DYNAMO_ITEM_LIMIT_BYTES) } } }]),
    ).toThrow(/item 0/);
    const big = { Put: { Item: { v: 'x'.repeat(400_000) } } };
    expect(() => assertTransactionFits(Array(11).fill(big))).toThrow(/in all/);
    expect(() => assertTransactionFits(Array(10).fill(big))).not.toThrow();
  });
});
