import {
  type AnchorVerifier,
  type ChainPoint,
  type SignedHead,
  SignedHeadSchema,
  signedHeadMessage,
} from './signed-head.ts';

/** Why the signed heads of an owner failed verification. */
export type SignedHeadFailureReason =
  | 'no_signed_head'
  | 'schema'
  | 'wrong_owner'
  | 'bad_signature'
  | 'verifier_error'
  | 'head_mismatch';

/** The outcome: on success the newest signed head and how many entries of each chain follow it unsigned. */
export type SignedHeadVerification =
  | {
      ok: true;
      count: number;
      newest: SignedHead | null;
      unsigned: { anchors: number; changes: number };
    }
  | { ok: false; index: number; reason: SignedHeadFailureReason; message: string };

/**
 * The stored chains a signed head must agree with, by seq: each whole chain as stored, in seq order, or (for a
 * page of signed heads) the stored entries at the seqs the heads name.
 */
export type SignedChains = { anchors: ChainEntries; changes: ChainEntries };
/** A chain's entries by seq: the whole chain (index = seq), or the entries read at some seqs. */
export type ChainEntries = readonly unknown[] | ReadonlyMap<number, unknown>;

const entryAt = (entries: ChainEntries, seq: number): unknown =>
  entries instanceof Map ? entries.get(seq) : (entries as readonly unknown[])[seq];

function pointMismatch(entries: ChainEntries, point: ChainPoint, chain: string): string | undefined {
  if (point === null) return undefined;
  const entry = entryAt(entries, point.seq) as { hash?: unknown } | undefined;
  if (entry === undefined) return `the ${chain} chain has no entry at the signed seq ${point.seq}`;
  if (entry.hash !== point.hash)
    return `the ${chain} chain's entry ${point.seq} differs from the signed head`;
  return undefined;
}

const order = (head: SignedHead) => [head.anchors?.seq ?? -1, head.changes?.seq ?? -1] as const;

/** The newer of two signed heads: the one covering more anchors, then more changes. */
export function newerHead(best: SignedHead | null, head: SignedHead): SignedHead {
  if (best === null) return head;
  const [a, c] = order(head);
  const [bestA, bestC] = order(best);
  return a > bestA || (a === bestA && c > bestC) ? head : best;
}

/**
 * Checks each signed head record: its schema, owner, signature (with the verifier's public key, never a key
 * from the table) and that the stored chains hold the signed hashes at the signed seqs. `firstIndex` is the
 * first record's position in the owner's signed heads (a page names its records by their position overall).
 */
export async function checkSignedHeads(
  records: readonly unknown[],
  chains: SignedChains,
  options: { owner: string; verifier: AnchorVerifier; firstIndex?: number },
): Promise<{ ok: true; heads: SignedHead[] } | Extract<SignedHeadVerification, { ok: false }>> {
  const heads: SignedHead[] = [];
  for (const [position, raw] of records.entries()) {
    const index = (options.firstIndex ?? 0) + position;
    const fail = (reason: SignedHeadFailureReason, message: string) => ({
      ok: false as const,
      index,
      reason,
      message: `signed head ${index}: ${message}`,
    });
    const parsed = SignedHeadSchema.safeParse(raw);
    if (!parsed.success)
      return fail('schema', `does not match the schema: ${parsed.error.issues[0]?.message}`);
    const head = parsed.data;
    if (head.owner !== options.owner) return fail('wrong_owner', `belongs to owner ${head.owner}`);
    let valid: boolean;
    try {
      const message = signedHeadMessage(head, head.keyId);
      valid = await options.verifier.verify(message, Buffer.from(head.signature, 'base64'), head.keyId);
    } catch (error) {
      return fail('verifier_error', `the signature could not be checked: ${(error as Error).message}`);
    }
    if (!valid) return fail('bad_signature', `the signature does not verify with key ${head.keyId}`);
    const mismatch =
      pointMismatch(chains.anchors, head.anchors, 'anchor') ??
      pointMismatch(chains.changes, head.changes, 'change');
    if (mismatch) return fail('head_mismatch', mismatch);
    heads.push(head);
  }
  return { ok: true, heads };
}

/**
 * What the newest signed head leaves unsigned of chains of `lengths` entries. Fails closed: chains with
 * entries and no signed head fail.
 */
export function signedSummary(
  newest: SignedHead | null,
  count: number,
  lengths: { anchors: number; changes: number },
): SignedHeadVerification {
  const total = lengths.anchors + lengths.changes;
  if (newest === null && total > 0) {
    return {
      ok: false,
      index: 0,
      reason: 'no_signed_head',
      message: `${total} chain entries and no signed head: the chains cannot be checked against a signature`,
    };
  }
  // A head signed after the chains were read may cover more than they held: nothing is unsigned then.
  const after = (length: number, point: ChainPoint | undefined) =>
    Math.max(0, length - ((point?.seq ?? -1) + 1));
  return {
    ok: true,
    count,
    newest,
    unsigned: {
      anchors: after(lengths.anchors, newest?.anchors),
      changes: after(lengths.changes, newest?.changes),
    },
  };
}

/**
 * Verifies every signed head of an owner: its signature (with the verifier's public key, never a key from
 * the table) and that the stored chains still hold the signed hashes at the signed seqs. A table rewritten
 * consistently (entries changed and every hash recomputed) still verifies as a chain, but no longer matches
 * the signed hash. Fails closed: chains with entries and no signed head fail.
 */
export async function verifySignedHeads(
  records: readonly unknown[],
  chains: { anchors: readonly unknown[]; changes: readonly unknown[] },
  options: { owner: string; verifier: AnchorVerifier },
): Promise<SignedHeadVerification> {
  const checked = await checkSignedHeads(records, chains, options);
  if (!checked.ok) return checked;
  const newest = checked.heads.reduce<SignedHead | null>(newerHead, null);
  return signedSummary(newest, checked.heads.length, {
    anchors: chains.anchors.length,
    changes: chains.changes.length,
  });
}
