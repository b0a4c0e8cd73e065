/**
 * What this container's approval pages read, kept for the decision that follows. A page reads the approval and
 * its run (with the workflow head, one BatchGetItem) and renders a form; the approver's decision POST comes
 * back to the same function, usually to the same container (Lambda reuses a warm execution environment
 * between invocations: https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html), and
 * there it decides on the approval and run as the page read them instead of reading both again.
 *
 * Why a kept read is as good as a fresh one: the decision is a commit conditional on the run's revision and on
 * the approval still `pending` with the task token as read (approval-ops.ts `decideApproval`, store/commit.ts);
 * a kept copy that is stale fails that commit, nothing is written, and `decideApproval` reads both again before
 * its next try, as it does after any lost race. What the link is checked against (approvers, expiry, the
 * arguments' hash) never changes on a stored approval. A decision on another container, or after the entry was
 * dropped, reads as before.
 *
 * Kept only for a page that rendered a form (an open approval, behind a verified link), for as long as the
 * page's form nonce is valid (FORM_NONCE_MAX_AGE_MS: a decision after that is refused before any read), and
 * taken (removed) by the first decision that asks: a second decision reads. Bounded by entries and by bytes,
 * oldest out first. Memory only: the task token on a kept approval is never logged, rendered or sent.
 */
import { FORM_NONCE_MAX_AGE_MS } from '../approvals/index.ts';
import { valueBytes } from '../core/item-size.ts';
import type { Approval } from '../schemas/approval.ts';
import type { Run } from '../schemas/run.ts';

/** Pages kept per container. */
export const PAGE_LOADS_MAX = 32;
/** DynamoDB item bytes kept per container (core/item-size.ts), over all entries. */
export const PAGE_LOADS_MAX_BYTES = 4 * 1024 * 1024;

/** An approval and its run as a page read them. */
export type PageLoad = { approval: Approval; run: Run };

type Entry = PageLoad & { atMs: number; bytes: number };

export class PageLoads {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxEntries = PAGE_LOADS_MAX, maxBytes = PAGE_LOADS_MAX_BYTES) {
    this.#maxEntries = maxEntries;
    this.#maxBytes = maxBytes;
  }

  /** Keeps what a page read at `nowMs` (replacing an older page of the same approval). */
  keep(load: PageLoad, nowMs: number): void {
    this.#drop(load.approval.approvalId);
    // Oldest first (kept in insertion order): what no decision can use any more goes.
    for (const [approvalId, entry] of this.#entries) {
      if (nowMs - entry.atMs <= FORM_NONCE_MAX_AGE_MS) break;
      this.#drop(approvalId);
    }
    const bytes = valueBytes(load.approval) + valueBytes(load.run);
    if (bytes > this.#maxBytes / 2) return;
    this.#entries.set(load.approval.approvalId, { ...load, atMs: nowMs, bytes });
    this.#bytes += bytes;
    while (this.#entries.size > this.#maxEntries || this.#bytes > this.#maxBytes) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#drop(oldest.value);
    }
  }

  /** The approval's kept page read, removed; none when there is none or it is older than a form nonce lives. */
  take(approvalId: string, nowMs: number): PageLoad | undefined {
    const found = this.#entries.get(approvalId);
    if (!found) return undefined;
    this.#drop(approvalId);
    if (nowMs - found.atMs > FORM_NONCE_MAX_AGE_MS) return undefined;
    return { approval: found.approval, run: found.run };
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#bytes };
  }

  #drop(approvalId: string): void {
    const found = this.#entries.get(approvalId);
    if (!found) return;
    this.#bytes -= found.bytes;
    this.#entries.delete(approvalId);
  }
}
