/**
 * `GET /v1/runs/{id}/audit`, a page at a time. A long run's chain passes the 6 MB a synchronous Lambda response
 * may hold (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html): a page holds whole entries
 * up to `LISTING_PAGE_BYTES` as sent (shared/runs/response-bytes.ts), always one (an entry is stored in an item
 * of at most 400 KB, so escaped twice it stays under 6 MB), and reads about that much (audit-ranges.ts).
 *
 * Each page is verified from a checkpoint: the first from the run's genesis hash, the next from the hash of the
 * entry before it, carried in the token (`from`). Pages read in order, each linking from the head the one before
 * ended at, verify the whole chain. The last page must also end at the head recorded on the run (truncation shows
 * there) and, the run once anchored, at its anchored head.
 */
import { AuditEntrySchema, auditGenesisHash, verifyAuditChain } from '../../audit/index.ts';
import { ItemCorruptError } from '../../core/store-errors.ts';
import { type TranscriptBindingFailure, verifyTranscriptBinding } from '../../core/transcript-binding.ts';
import { fittingCount, LISTING_PAGE_BYTES } from '../../runs/step-page.ts';
import type { Run } from '../../schemas/run.ts';
import { checkpointHash, type RunAuditCursor, runAuditCursor, runAuditToken } from '../audit-cursors.ts';
import type { ApiDeps } from '../deps.ts';
import { readBoundMessages, type TranscriptCursor } from './run-audit-transcript.ts';

/**
 * The chain's verification, or the first entry whose transcript binding fails (see transcript-binding.ts), with
 * the cursor the next page reads the transcript from: only the messages this page binds are read.
 */
async function bindTranscript<T extends { ok: true }>(
  deps: ApiDeps,
  runId: string,
  entries: unknown[],
  chain: T,
  from: TranscriptCursor | undefined,
): Promise<{ verification: T | TranscriptBindingFailure; next: TranscriptCursor | undefined }> {
  try {
    const parsed = entries.map((entry) => AuditEntrySchema.parse(entry));
    const window = await readBoundMessages(deps.store, runId, parsed, from);
    if (!window.messages) return { verification: chain, next: window.next };
    const bound = verifyTranscriptBinding(parsed, window.messages);
    return { verification: bound.ok ? chain : bound, next: window.next };
  } catch (error) {
    if (!(error instanceof ItemCorruptError)) throw error;
    const failure = {
      ok: false,
      firstBrokenSeq: 0,
      reason: 'transcript_mismatch',
      message: error.message,
    } as const;
    return { verification: failure, next: from };
  }
}

/** The page of `run`'s chain `token` names (the first without one); `reload` reads the run again. */
export async function readRunAuditPage(
  deps: ApiDeps,
  initial: Run,
  token: string | undefined,
  reload: () => Promise<Run>,
) {
  let run = initial;
  const from: RunAuditCursor = runAuditCursor(run.runId, token) ?? {
    item: 0,
    seq: 0,
    prevHash: auditGenesisHash(run),
  };
  let range = await deps.store.auditRanges.run(run.runId, from, LISTING_PAGE_BYTES);
  let count = fittingCount(
    range.entries.map(({ entry }) => entry),
    LISTING_PAGE_BYTES,
  );
  const last = () => !range.more && count === range.entries.length;
  // The run item records the chain's head. An entry written between the two reads is not tampering: read
  // again until the run and its last page agree (a truncated chain keeps disagreeing, and shows).
  for (let attempt = 0; attempt < 4 && last() && from.seq + count !== run.audit.seq; attempt++) {
    run = await reload();
    range = await deps.store.auditRanges.run(run.runId, from, LISTING_PAGE_BYTES);
    count = fittingCount(
      range.entries.map(({ entry }) => entry),
      LISTING_PAGE_BYTES,
    );
  }
  const final = last();
  const entries = range.entries.slice(0, count).map(({ entry }) => entry);
  const chain = verifyAuditChain(entries, {
    owner: run.owner,
    runId: run.runId,
    start: { seq: from.seq, prevHash: from.prevHash },
    ...(final && run.audit.seq > 0 ? { expectedHead: { seq: run.audit.seq - 1, hash: run.audit.head } } : {}),
  });
  // The chain holds hashes of the transcript as stored: an edited message breaks the entry that bound it.
  const bound = chain.ok
    ? await bindTranscript(deps, run.runId, entries, chain, from.transcript)
    : { verification: chain, next: undefined };
  const verification = bound.verification;
  const answer = {
    runId: run.runId,
    entries,
    from: { seq: from.seq, prevHash: from.prevHash },
    verification,
  };
  if (!final) {
    const next = range.entries[count];
    const seq = from.seq + count;
    const nextToken = runAuditToken(run.runId, {
      item: next?.item ?? seq,
      seq,
      prevHash: checkpointHash(entries.at(-1)),
      ...(bound.next ? { transcript: bound.next } : {}),
    });
    return { ...answer, anchor: null, anchored: false, nextToken };
  }
  const anchor = await deps.store.getRunAnchor(run.owner, run.runId);
  const anchored = verification.ok && anchor !== undefined && anchor.runHead === verification.head;
  return { ...answer, anchor: anchor ?? null, anchored };
}
