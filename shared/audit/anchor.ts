import * as z from '../zod.ts';
import { canonicalJson, sha256Hex } from './canonical.ts';
import { HexHashSchema } from './entry.ts';
import { AuditEntryError } from './errors.ts';

/** Domain separator of owner-anchor hashes (distinct from run entries, so neither can pass as the other). */
export const OWNER_ANCHOR_DOMAIN = 'wf-audit-owner/v1\n';
/** Domain separator of an owner chain's genesis hash. */
export const OWNER_GENESIS_DOMAIN = 'wf-audit-owner/v1/genesis\n';

/** One link of an owner's chain: the final head of one run's audit chain. */
export const OwnerAnchorSchema = z.strictObject({
  schemaVersion: z.literal(1),
  owner: z.string().check(z.minLength(1)),
  seq: z.number().check(z.int(), z.nonnegative()),
  at: z.iso.datetime({ offset: true }),
  runId: z.string().check(z.minLength(1)),
  /** The seq of the run's last entry: with it a truncated run chain is detected, not only an altered one. */
  runHeadSeq: z.number().check(z.int(), z.nonnegative()),
  runHead: HexHashSchema,
  prevHash: HexHashSchema,
  hash: HexHashSchema,
});

/** A sealed owner anchor. */
export type OwnerAnchor = z.infer<typeof OwnerAnchorSchema>;
/** What a caller supplies to anchor a run; the chain fields are derived. */
export type OwnerAnchorInput = Pick<OwnerAnchor, 'owner' | 'at' | 'runId' | 'runHeadSeq' | 'runHead'>;

/** The `prevHash` of an owner chain's seq 0, bound to the owner. */
export function ownerGenesisHash(owner: string): string {
  return sha256Hex(OWNER_GENESIS_DOMAIN, canonicalJson({ owner }));
}

function anchorHash(body: Omit<OwnerAnchor, 'hash'>): string {
  return sha256Hex(OWNER_ANCHOR_DOMAIN, body.prevHash, canonicalJson(body));
}

/** Anchors a run's final head after `head` (the owner's last anchor, or `undefined` for the first). */
export function sealOwnerAnchor(head: OwnerAnchor | undefined, input: OwnerAnchorInput): OwnerAnchor {
  if (head !== undefined && head.owner !== input.owner) {
    throw new AuditEntryError('cannot anchor into another owner chain', {
      head: head.owner,
      owner: input.owner,
    });
  }
  const body = {
    schemaVersion: 1 as const,
    owner: input.owner,
    seq: head === undefined ? 0 : head.seq + 1,
    at: input.at,
    runId: input.runId,
    runHeadSeq: input.runHeadSeq,
    runHead: input.runHead,
    prevHash: head === undefined ? ownerGenesisHash(input.owner) : head.hash,
  };
  const parsed = z.omit(OwnerAnchorSchema, { hash: true }).safeParse(body);
  if (!parsed.success) {
    throw new AuditEntryError(`owner anchor does not match the schema: ${parsed.error.issues[0]?.message}`, {
      issues: parsed.error.issues,
    });
  }
  return { ...parsed.data, hash: anchorHash(parsed.data) };
}

/** Why an owner chain failed verification. */
export type OwnerChainFailureReason =
  | 'schema'
  | 'wrong_owner'
  | 'seq_gap'
  | 'hash_mismatch'
  | 'prev_hash_mismatch'
  | 'duplicate_run';

/** The outcome of verifying an owner chain; on failure, anchors with `seq < firstBrokenSeq` verified. */
export type OwnerChainVerification =
  | { ok: true; count: number; head: string }
  | { ok: false; firstBrokenSeq: number; index: number; reason: OwnerChainFailureReason; message: string };

/**
 * Verifies an owner's anchors given in stored order (by seq). A run is anchored once per head: it may be
 * anchored again only at a later head of its chain (a reopened graph run), never at the same or an earlier one.
 * With `start`, verifies a range from a checkpoint (a page of the chain); a run anchored twice is then found
 * only when both anchors are in the range (a client verifying the whole chain finds every one).
 */
export function verifyOwnerChain(
  anchors: readonly unknown[],
  options: { owner: string; start?: { seq: number; prevHash: string } },
): OwnerChainVerification {
  const startSeq = options.start?.seq ?? 0;
  let prevHash = options.start?.prevHash ?? ownerGenesisHash(options.owner);
  const anchoredSeq = new Map<string, number>();
  for (const [index, raw] of anchors.entries()) {
    const seq = startSeq + index;
    const fail = (reason: OwnerChainFailureReason, message: string): OwnerChainVerification => ({
      ok: false,
      firstBrokenSeq: seq,
      index,
      reason,
      message: `seq ${seq}: ${message}`,
    });
    const parsed = OwnerAnchorSchema.safeParse(raw);
    if (!parsed.success)
      return fail('schema', `does not match the schema: ${parsed.error.issues[0]?.message}`);
    const { hash, ...body } = parsed.data;
    if (body.owner !== options.owner) return fail('wrong_owner', `belongs to owner ${body.owner}`);
    if (body.seq !== seq) return fail('seq_gap', `anchor has seq ${body.seq}, expected ${seq}`);
    if (anchorHash(body) !== hash) return fail('hash_mismatch', 'content does not match its hash');
    if (body.prevHash !== prevHash)
      return fail('prev_hash_mismatch', 'prevHash does not link to the previous anchor');
    const earlier = anchoredSeq.get(body.runId);
    if (earlier !== undefined && body.runHeadSeq <= earlier)
      return fail('duplicate_run', `run ${body.runId} is already anchored at entry ${earlier}`);
    anchoredSeq.set(body.runId, body.runHeadSeq);
    prevHash = hash;
  }
  return { ok: true, count: anchors.length, head: prevHash };
}

/** The anchored head of a run, as `verifyAuditChain`'s `expectedHead` option takes it. */
export function anchoredHead(anchor: OwnerAnchor): { seq: number; hash: string } {
  return { seq: anchor.runHeadSeq, hash: anchor.runHead };
}
