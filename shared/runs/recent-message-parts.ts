/**
 * The parts of the last message a container served in parts (GET /v1/runs/{id}/transcript, transcript-page.ts),
 * so that the pages after the first part of a large message need neither its read nor its split again. Without
 * it every part page reads the whole message (its parts depend on all of it, and each carries how many there
 * are) and cuts it again: paging a message of N parts read it N times — a 3.6 MB message in 8 parts, ~32 MB
 * of Queries and 8 splits — and a client pages through it in order, usually on one warm container.
 *
 * Why serving them again is safe: a message item is written once and never updated or deleted
 * (store/transcript-cache.ts has the argument), so the parts cut from it stay its parts. What can change is
 * whether messages follow it (a run still going appends more): that is kept only once seen true, and the last
 * part of a message not yet followed is read again, so a listing never ends before a message appended since.
 * Only the caller's own run reaches it (the route checks the owner first), keyed by run and seq.
 *
 * One message per container: its parts are at most the largest message (~6.4 MB of text:
 * shared/core/transcript-limits.ts), and a container serves one request at a time.
 */
import type { MessagePart } from './message-parts.ts';

type Kept = { runId: string; seq: number; parts: readonly MessagePart[]; followed: boolean };

export class RecentMessageParts {
  #kept: Kept | undefined;

  /** The kept parts of `runId`'s message `seq`, and whether messages follow it; undefined when not kept. */
  get(runId: string, seq: number): Omit<Kept, 'runId' | 'seq'> | undefined {
    const kept = this.#kept;
    return kept && kept.runId === runId && kept.seq === seq ? kept : undefined;
  }

  /** Keeps `parts`, cut from `runId`'s message `seq`, in place of what was kept. */
  remember(runId: string, seq: number, parts: readonly MessagePart[], followed: boolean): void {
    this.#kept = { runId, seq, parts, followed };
  }
}

const byStore = new WeakMap<object, RecentMessageParts>();

/** The parts kept for `store`'s messages (one per store: a container's, or a test's own table). */
export function recentMessageParts(store: object): RecentMessageParts {
  let found = byStore.get(store);
  if (!found) {
    found = new RecentMessageParts();
    byStore.set(store, found);
  }
  return found;
}
