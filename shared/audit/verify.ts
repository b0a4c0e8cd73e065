import { AuditEntrySchema } from './entry.ts';
import { auditGenesisHash, computeAuditEntryHash } from './seal.ts';

/** Why a chain failed verification. */
export type AuditChainFailureReason =
  | 'schema'
  | 'wrong_owner'
  | 'wrong_run'
  | 'seq_gap'
  | 'hash_mismatch'
  | 'prev_hash_mismatch'
  | 'head_mismatch';

/**
 * The outcome of verifying a chain. On failure, every entry with `seq < firstBrokenSeq` verified; `index`
 * is the position in the given array where verification stopped (`entries.length` when entries are missing
 * at the end).
 */
export type AuditChainVerification =
  | { ok: true; count: number; head: string }
  | { ok: false; firstBrokenSeq: number; index: number; reason: AuditChainFailureReason; message: string };

/** Which run the entries must belong to, and optionally where to start and where the chain must end. */
export type VerifyAuditChainOptions = {
  owner: string;
  runId: string;
  /** Verify a suffix from a trusted checkpoint: the first entry's seq and the hash before it. */
  start?: { seq: number; prevHash: string };
  /** The anchored head (see `OwnerAnchor`): the chain must end exactly there, which detects truncation. */
  expectedHead?: { seq: number; hash: string };
};

type Failure = Extract<AuditChainVerification, { ok: false }>;

/** Verifies entries given in stored order (by seq) and names the first broken one. */
export function verifyAuditChain(
  entries: readonly unknown[],
  options: VerifyAuditChainOptions,
): AuditChainVerification {
  const { owner, runId } = options;
  const startSeq = options.start?.seq ?? 0;
  let prevHash = options.start?.prevHash ?? auditGenesisHash({ owner, runId });

  for (const [index, raw] of entries.entries()) {
    const seq = startSeq + index;
    const fail = (reason: AuditChainFailureReason, message: string): Failure => ({
      ok: false,
      firstBrokenSeq: seq,
      index,
      reason,
      message: `seq ${seq} (index ${index}): ${message}`,
    });
    const parsed = AuditEntrySchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return fail(
        'schema',
        `does not match the schema: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
      );
    }
    const entry = parsed.data;
    if (entry.owner !== owner)
      return fail('wrong_owner', `belongs to owner ${entry.owner}, expected ${owner}`);
    if (entry.runId !== runId) return fail('wrong_run', `belongs to run ${entry.runId}, expected ${runId}`);
    if (entry.seq !== seq) return fail('seq_gap', `entry has seq ${entry.seq}, expected ${seq}`);
    const { hash, ...body } = entry;
    let computed: string;
    try {
      computed = computeAuditEntryHash(body);
    } catch {
      return fail('schema', 'data is not canonical-JSON serializable');
    }
    // A changed field fails here; a re-sealed changed entry passes here and breaks its successor's link.
    if (computed !== hash) return fail('hash_mismatch', 'content does not match its hash');
    if (entry.prevHash !== prevHash)
      return fail('prev_hash_mismatch', 'prevHash does not link to the previous entry');
    prevHash = hash;
  }

  const count = entries.length;
  if (options.expectedHead !== undefined) {
    const failure = checkHead(options.expectedHead, startSeq, count, prevHash);
    if (failure !== undefined) return failure;
  }
  return { ok: true, count, head: prevHash };
}

function checkHead(
  expected: { seq: number; hash: string },
  startSeq: number,
  count: number,
  head: string,
): Failure | undefined {
  const headSeq = startSeq + count - 1;
  const failure = (firstBrokenSeq: number, index: number, message: string): Failure => ({
    ok: false,
    firstBrokenSeq,
    index,
    reason: 'head_mismatch',
    message: `seq ${firstBrokenSeq} (index ${index}): ${message}`,
  });
  if (expected.seq < startSeq) {
    return failure(startSeq, 0, `the anchored head seq ${expected.seq} precedes the verified range`);
  }
  if (headSeq < expected.seq) {
    return failure(
      headSeq + 1,
      count,
      `chain ends at seq ${headSeq} but the anchored head is seq ${expected.seq}`,
    );
  }
  if (headSeq > expected.seq) {
    const seq = expected.seq + 1;
    return failure(seq, seq - startSeq, `entries follow the anchored head seq ${expected.seq}`);
  }
  if (head !== expected.hash) {
    return failure(expected.seq, Math.max(count - 1, 0), 'head hash differs from the anchored head');
  }
  return undefined;
}
