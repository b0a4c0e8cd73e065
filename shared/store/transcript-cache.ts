/**
 * What a container remembers of the transcripts it has read: each run's messages from seq 0 up, as they were
 * read, validated and reassembled (run-with-messages.ts). A turn reads the run with its transcript on every
 * turn; with the messages this container already holds, it reads only the ones after them, so a turn's read,
 * its unmarshalling and its validation no longer grow with the transcript (they made a long run quadratic).
 *
 * Why reusing them is safe: a message item is written once, `attribute_not_exists(pk)`, in the transaction
 * that moves the run past it (commit.ts, runs.ts), and no write updates or deletes one, so the items of
 * seq < n read before are the items a read now would return, byte for byte; they were validated (zod, and
 * reassembled part by part) when they were read. Only a prefix of whole messages with no gap (seq 0 … n-1)
 * is kept: a Query is read-committed, not a snapshot, so one read may miss a message committed while it ran
 * and see a later one. The run item itself is never cached: it is read on every turn (the fence).
 *
 * Every message kept is frozen (deeply): a caller that changed one would otherwise change the next turn's
 * transcript. Bounded by runs and by bytes, least recently used first out.
 */
import { valueBytes } from '../core/item-size.ts';
import type { TranscriptMessage } from '../schemas/message.ts';

/** Runs whose transcripts are kept per container. */
export const TRANSCRIPT_CACHE_RUNS = 64;
/**
 * Bytes (DynamoDB item size, core/item-size.ts) of messages kept per container, over all runs; one run's
 * transcript is kept only up to half of it. Small beside the Turn function's 165 MB (docs/deploy.md, "Turn
 * memory": a turn of the largest transcript peaks at ~119 MB, and the third of three largest answers served by one
 * container, beside two runs' kept messages, at ~130 MB): the current run's kept messages are the transcript the
 * turn holds anyway; only other runs' (at most 4 MB of item bytes) are extra.
 */
export const TRANSCRIPT_CACHE_BYTES = 4 * 1024 * 1024;

type Entry = { messages: readonly TranscriptMessage[]; bytes: number };

export class TranscriptCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxRuns: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxRuns = TRANSCRIPT_CACHE_RUNS, maxBytes = TRANSCRIPT_CACHE_BYTES) {
    this.#maxRuns = maxRuns;
    this.#maxBytes = maxBytes;
  }

  /** The run's kept messages (seq 0 … n-1, frozen), refreshed as most recently used; empty when none. */
  get(runId: string): readonly TranscriptMessage[] {
    const found = this.#entries.get(runId);
    if (!found) return [];
    this.#entries.delete(runId);
    this.#entries.set(runId, found);
    return found.messages;
  }

  /**
   * Keeps the run's transcript as read: `kept` (what `get` gave) followed by `read` (validated just now). Only
   * the longest prefix without a gap is kept; a transcript too large for the cache is not kept at all.
   */
  remember(runId: string, kept: readonly TranscriptMessage[], read: readonly TranscriptMessage[]): void {
    const entry = this.#entries.get(runId);
    let bytes =
      entry?.messages === kept ? entry.bytes : kept.reduce((sum, message) => sum + valueBytes(message), 0);
    const messages = [...kept];
    for (const message of read) {
      if (message.seq !== messages.length) break;
      bytes += valueBytes(message);
      messages.push(deepFreeze(message));
    }
    this.forget(runId);
    if (messages.length === 0 || bytes > this.#maxBytes / 2) return;
    this.#entries.set(runId, { messages, bytes });
    this.#bytes += bytes;
    while (this.#entries.size > this.#maxRuns || this.#bytes > this.#maxBytes) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.forget(oldest.value);
    }
  }

  /** Drops the run's kept messages (its run item was not found). */
  forget(runId: string): void {
    const found = this.#entries.get(runId);
    if (!found) return;
    this.#bytes -= found.bytes;
    this.#entries.delete(runId);
  }

  get size(): { runs: number; bytes: number } {
    return { runs: this.#entries.size, bytes: this.#bytes };
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}
