/**
 * Reading transcript items back: joins each message's head and continuation items (message-items.ts) into
 * the message exactly as it was written, in order. A missing, extra or out-of-order part, or a fragment
 * left open, is an `ItemCorruptError` naming the item: a transcript is never returned half-assembled.
 */
import { ItemCorruptError } from '../core/store-errors.ts';
import { type TranscriptMessage, TranscriptMessageSchema } from '../schemas/message.ts';
import { decodeItem } from './codec.ts';
import { joinBlock, unfinished, withToolInputs } from './message-join.ts';

const PART_SK = /^MSG#(\d{6})#(\d{4})$/;

type Block = Record<string, unknown>;
type Open = { head: Record<string, unknown>; content: Block[]; parts: number; seen: number };

const where = (item: Record<string, unknown>) => `${String(item.pk)}/${String(item.sk)}`;

function append(open: Open, item: Record<string, unknown>): void {
  const blocks = Array.isArray(item.content) ? (item.content as unknown[]) : undefined;
  if (!blocks) throw new ItemCorruptError(where(item), 'content: expected a list');
  for (const raw of blocks) {
    const problem = joinBlock(open.content, raw as Block);
    if (problem) throw new ItemCorruptError(where(item), problem);
  }
}

function close(open: Open): TranscriptMessage {
  const { head } = open;
  if (open.seen !== open.parts)
    throw new ItemCorruptError(where(head), `has ${open.parts} parts, ${open.seen} were found`);
  const problem = unfinished(open.content);
  if (problem) throw new ItemCorruptError(where(head), problem);
  const content = withToolInputs(open.content, (cause) => {
    throw new ItemCorruptError(where(head), 'a tool_use input is not JSON', { cause });
  });
  const { parts: _parts, ...fields } = head;
  return decodeItem(TranscriptMessageSchema, { ...fields, content });
}

/** The messages stored in `items` (a run's `MSG#` items in key order), each reassembled. */
export function assembleMessages(items: Record<string, unknown>[]): TranscriptMessage[] {
  const messages: TranscriptMessage[] = [];
  let open: Open | undefined;
  for (const item of items) {
    const part = PART_SK.exec(String(item.sk));
    if (!part) {
      if (open) messages.push(close(open));
      const parts = item.parts === undefined ? 0 : Number(item.parts);
      if (!Number.isInteger(parts) || parts < 0)
        throw new ItemCorruptError(where(item), 'parts: expected a whole number');
      open = { head: item, content: [], parts, seen: 0 };
      append(open, item);
      continue;
    }
    const [, seq, number] = part;
    if (!open || Number(seq) !== open.head.seq || Number(number) !== open.seen + 1)
      throw new ItemCorruptError(where(item), 'a message part without its head or out of order');
    open.seen += 1;
    append(open, item);
  }
  if (open) messages.push(close(open));
  return messages;
}
