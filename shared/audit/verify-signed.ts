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

/** The stored chains a signed head must agree with (as stored, in seq order). */
export type SignedChains = { anchors: readonly unknown[]; changes: readonly unknown[] };

const hashAt = (items: readonly unknown[], seq: number): unknown =>
  (items[seq] as { hash?: unknown } | undefined)?.hash;

function pointMismatch(items: readonly unknown[], point: ChainPoint, chain: string): string | undefined {
  if (point === null) return undefined;
  if (items.length <= point.seq) return `the ${chain} chain ends before the signed seq ${point.seq}`;
  if (hashAt(items, point.seq) !== point.hash)
    return `the ${chain} chain's entry ${point.seq} differs from the signed head`;
  return undefined;
}

const order = (head: SignedHead) => [head.anchors?.seq ?? -1, head.changes?.seq ?? -1] as const;

/**
 * Verifies every signed head of an owner: its signature (with the verifier's public key, never a key from
 * the table) and that the stored chains still hold the signed hashes at the signed seqs. A table rewritten
 * consistently (entries changed and every hash recomputed) still verifies as a chain, but no longer matches
 * the signed hash. Fails closed: chains with entries and no signed head fail.
 */
export async function verifySignedHeads(
  records: readonly unknown[],
  chains: SignedChains,
  options: { owner: string; verifier: AnchorVerifier },
): Promise<SignedHeadVerification> {
  const heads: SignedHead[] = [];
  for (const [index, raw] of records.entries()) {
    const fail = (reason: SignedHeadFailureReason, message: string): SignedHeadVerification => ({
      ok: false,
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
  const newest = heads.reduce<SignedHead | null>((best, head) => {
    if (best === null) return head;
    const [a, c] = order(head);
    const [bestA, bestC] = order(best);
    return a > bestA || (a === bestA && c > bestC) ? head : best;
  }, null);
  const total = chains.anchors.length + chains.changes.length;
  if (newest === null && total > 0) {
    return {
      ok: false,
      index: 0,
      reason: 'no_signed_head',
      message: `${total} chain entries and no signed head: the chains cannot be checked against a signature`,
    };
  }
  return {
    ok: true,
    count: heads.length,
    newest,
    unsigned: {
      anchors: chains.anchors.length - ((newest?.anchors?.seq ?? -1) + 1),
      changes: chains.changes.length - ((newest?.changes?.seq ?? -1) + 1),
    },
  };
}
