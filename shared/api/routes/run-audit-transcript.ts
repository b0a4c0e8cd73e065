/**
 * The part of the transcript one audit page binds (transcript-binding.ts), read instead of the whole transcript:
 * a page of a long run's chain used to read every message, so walking the chain read the transcript once a page.
 *
 * Why a window is enough. Entries bind messages in chain order: `model_call` of turn t binds the assistant
 * message of turn t; `settle` and `denial` bind a tool_use of the latest model call before them and the message
 * after it (its answer). A run's calls are all answered before its next model call, so no entry after the
 * model call of turn t binds a message before that assistant message. So a page reads from the assistant
 * message of the last model call of the pages before it (carried in the token, `TranscriptCursor`; the message
 * after it when the page starts with a model call) up to the assistant message of its own last model call and the
 * message after it, asking for about as many messages as its turns add. A cursor that skips a bound message
 * (a forged token) makes the binding fail: nothing bound goes unchecked.
 */
import type { AuditEntry } from '../../audit/index.ts';
import type { TranscriptMessage } from '../../schemas/message.ts';
import type { DynamoStore } from '../../store/index.ts';

/** The assistant message the last model call so far bound: its seq and turn (none before the first). */
export type TranscriptCursor = { seq: number; turn: number };

/** Messages a turn usually adds: the model's answer and the tool results (more are read when a turn has more). */
const MESSAGES_PER_TURN = 2;

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Whether `entry` binds a message (what verifyTranscriptBinding checks), and the turn of a model call. */
function bindingOf(entry: AuditEntry): { binds: boolean; turn?: number } {
  const { data } = entry;
  if (entry.type === 'model_call' && str(data.contentHash))
    return typeof data.turn === 'number' ? { binds: true, turn: data.turn } : { binds: true };
  if (entry.type !== 'settle' && entry.type !== 'denial') return { binds: false };
  if (str(data.stepId) || !str(data.toolUseId)) return { binds: false };
  return { binds: str(data.contentHash) !== undefined || str(data.argsHash) !== undefined };
}

export type TranscriptWindow = {
  /** Undefined when no entry of the page binds a message (nothing was read). */
  messages: TranscriptMessage[] | undefined;
  /** Where the next page's window starts. */
  next: TranscriptCursor | undefined;
};

/** The messages `entries` bind, read from `from` on; and the cursor the next page starts from. */
export async function readBoundMessages(
  store: Pick<DynamoStore, 'readMessageRange'>,
  runId: string,
  entries: readonly AuditEntry[],
  from: TranscriptCursor | undefined,
): Promise<TranscriptWindow> {
  const bindings = entries.map(bindingOf);
  if (!bindings.some((binding) => binding.binds)) return { messages: undefined, next: from };
  const turns = bindings.flatMap((binding) => (binding.turn === undefined ? [] : [binding.turn]));
  const lastTurn = turns.length > 0 ? Math.max(...turns) : from?.turn;
  // A page whose first bound entry is a model call binds nothing of the assistant message before it.
  const firstBindsModelCall = bindings.find((binding) => binding.binds)?.turn !== undefined;
  let seq = from === undefined ? 0 : firstBindsModelCall ? from.seq + 1 : from.seq;
  // About the messages up to the last bound answer and the one after it; read again (twice as many) if short.
  let count = Math.max(2, MESSAGES_PER_TURN * ((lastTurn ?? 0) - (from?.turn ?? -1)) + 1);
  const messages: TranscriptMessage[] = [];
  for (;;) {
    const range = await store.readMessageRange(runId, {
      seq,
      count,
      bytes: Number.MAX_SAFE_INTEGER,
      itemsPerQuery: count + 1,
    });
    messages.push(...range.messages);
    const at = messages.findIndex((m) => m.role === 'assistant' && m.turn === lastTurn);
    // Done: the last bound assistant message and its answer are read, or the transcript ended.
    if (!range.more || range.messages.length === 0 || (at >= 0 && at + 1 < messages.length)) break;
    seq = messages.at(-1)!.seq + 1;
    count *= 2;
  }
  const last = messages.find((m) => m.role === 'assistant' && m.turn === lastTurn);
  return {
    messages,
    next: last && lastTurn !== undefined ? { seq: last.seq, turn: lastTurn } : from,
  };
}
