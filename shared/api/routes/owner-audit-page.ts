/**
 * One page of `GET /v1/audit`. A busy owner's chains (one anchor per finished run, one signed head after each
 * anchor or change) pass the 6 MB a synchronous Lambda response may hold
 * (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html). The walk shows the workflow-change
 * chain, then the anchor chain, then the signed heads; a page holds entries up to `LISTING_PAGE_BYTES` as sent
 * (shared/runs/response-bytes.ts), always one, and reads about that much (shared/store/audit-ranges.ts).
 *
 * What a page verifies:
 * - each chain's entries on it, linked from its checkpoint (`from`: the genesis hash, then the hash of the entry
 *   before the page, carried in the token). Pages read in order verify each chain whole;
 * - each signed head on it: its signature, and that the chains hold the signed hashes at the signed seqs (read
 *   at those seqs, at most two per head);
 * - on the last page, the owner's newest signed head and what follows it unsigned, against the chains' lengths
 *   as the walk read them (fails closed: entries and no signed head fail).
 * A run anchored twice at the same head is found when both anchors are on one page; `wf audit verify --owner`
 * verifies the whole chain and finds every one.
 */
import {
  type AnchorVerifier,
  checkSignedHeads,
  newerHead,
  type OwnerChainVerification,
  type OwnerChangeVerification,
  ownerChangeGenesisHash,
  ownerGenesisHash,
  type SignedHead,
  SignedHeadSchema,
  type SignedHeadVerification,
  signedSummary,
  verifyOwnerChain,
  verifyOwnerChanges,
} from '../../audit/index.ts';
import { encodedBytes } from '../../runs/response-bytes.ts';
import { LISTING_PAGE_BYTES } from '../../runs/step-page.ts';
import {
  type Checkpoint,
  checkpointHash,
  type OwnerAuditCursor,
  ownerAuditCursor,
  ownerAuditToken,
} from '../audit-cursors.ts';
import type { ApiDeps } from '../deps.ts';

/** Signed heads a page checks at most: each needs up to two entries read (BatchGetItem, 100 keys a request). */
export const SIGNED_HEADS_PER_PAGE = 500;

const NO_VERIFIER = {
  ok: false as const,
  index: 0,
  reason: 'verifier_error' as const,
  message: 'this deployment has no audit verifier configured: signed heads cannot be checked',
};

/** How many of `items` fit in `bytes` as sent (each after the first also costs its comma); one at least if `first`. */
function fitting(items: readonly unknown[], bytes: number, first: boolean): { count: number; used: number } {
  let used = 0;
  for (const [index, item] of items.entries()) {
    const size = encodedBytes(item) + (index > 0 ? 1 : 0);
    if (used + size > bytes && !(first && index === 0)) return { count: index, used };
    used += size;
  }
  return { count: items.length, used };
}

type ChainSection = {
  entries: unknown[];
  from: Checkpoint;
  verification: OwnerChangeVerification | OwnerChainVerification;
};
type PageDeps = Pick<ApiDeps, 'store'>;

/** The page of `owner`'s audit `token` names (the first without one). */
export async function ownerAuditPage(
  deps: PageDeps,
  owner: string,
  token: string | undefined,
  verifier: AnchorVerifier | undefined,
) {
  const cursor: OwnerAuditCursor = ownerAuditCursor(owner, token) ?? {
    section: 'changes',
    changes: { seq: 0, prevHash: ownerChangeGenesisHash(owner) },
    anchors: { seq: 0, prevHash: ownerGenesisHash(owner) },
    signed: { index: 0 },
  };
  let budget = LISTING_PAGE_BYTES;
  let first = true;
  const untouched = (from: Checkpoint): ChainSection => ({
    entries: [],
    from,
    verification: { ok: true, count: 0, head: from.prevHash },
  });
  const sections = { changes: untouched(cursor.changes), anchors: untouched(cursor.anchors) };

  for (const chain of ['changes', 'anchors'] as const) {
    if (cursor.section !== chain) continue;
    // Nothing of the budget left: the next page starts with this chain.
    if (budget <= 0) return answer(owner, sections, unreached, cursor);
    const from = cursor[chain];
    const read = await deps.store.auditRanges.owner(owner, chain, from.seq, budget);
    const { count, used } = fitting(read.entries, budget, first);
    const entries = read.entries.slice(0, count);
    const verify = chain === 'changes' ? verifyOwnerChanges : verifyOwnerChain;
    sections[chain] = { entries, from, verification: verify(entries, { owner, start: from }) };
    const end = {
      seq: from.seq + count,
      prevHash: count > 0 ? checkpointHash(entries.at(-1)) : from.prevHash,
    };
    const next: OwnerAuditCursor = { ...cursor, [chain]: end };
    if (read.more || count < read.entries.length) return answer(owner, sections, unreached, next);
    budget -= used;
    first &&= count === 0;
    cursor.section = chain === 'changes' ? 'anchors' : 'signed';
    cursor[chain] = end;
  }
  if (budget <= 0) return answer(owner, sections, unreached, cursor);
  const signed = await signedHeadsPage(deps, owner, cursor, { budget, first, verifier });
  return answer(owner, sections, signed.section, signed.next);
}

const unreached = { entries: [] as unknown[], verification: { ok: true, count: 0 } as const };

function answer(
  owner: string,
  sections: { changes: ChainSection; anchors: ChainSection },
  signedHeads: { entries: unknown[]; verification: unknown },
  next: OwnerAuditCursor | undefined,
) {
  return { owner, ...sections, signedHeads, ...(next ? { nextToken: ownerAuditToken(owner, next) } : {}) };
}

/** The signed heads of the page, each checked; on the last page, the newest and what it leaves unsigned. */
async function signedHeadsPage(
  deps: PageDeps,
  owner: string,
  cursor: OwnerAuditCursor,
  page: { budget: number; first: boolean; verifier: AnchorVerifier | undefined },
) {
  const read = await deps.store.auditRanges.signedHeads(owner, {
    ...(cursor.signed.after !== undefined ? { after: cursor.signed.after } : {}),
    bytes: page.budget,
    limit: SIGNED_HEADS_PER_PAGE,
  });
  const { count } = fitting(
    read.heads.map(({ entry }) => entry),
    page.budget,
    page.first,
  );
  const shown = read.heads.slice(0, count);
  const entries = shown.map(({ entry }) => entry);
  const final = !read.more && count === read.heads.length;
  const after = shown.at(-1)?.sk ?? cursor.signed.after;
  const next: OwnerAuditCursor | undefined = final
    ? undefined
    : { ...cursor, signed: { index: cursor.signed.index + count, ...(after ? { after } : {}) } };
  const verification = page.verifier
    ? await checkPage(deps, owner, entries, final, cursor, page.verifier)
    : entries.length > 0 || final
      ? NO_VERIFIER
      : { ok: true as const, count: 0 };
  return { section: { entries, verification }, next };
}

/** Signatures and signed seqs of the page's heads; on the last page the newest head and the unsigned counts. */
async function checkPage(
  deps: PageDeps,
  owner: string,
  records: readonly unknown[],
  final: boolean,
  cursor: OwnerAuditCursor,
  verifier: AnchorVerifier,
): Promise<SignedHeadVerification | { ok: true; count: number }> {
  const newestRecord = final ? await deps.store.auditRanges.newestSignedHead(owner) : undefined;
  const named = [...records, ...(newestRecord === undefined ? [] : [newestRecord])].flatMap((record) => {
    const parsed = SignedHeadSchema.safeParse(record);
    return parsed.success ? [parsed.data] : [];
  });
  const seqs = (chain: 'anchors' | 'changes') =>
    named.flatMap((head) => (head[chain] === null ? [] : [head[chain].seq]));
  const hashes = await deps.store.auditRanges.hashesAt(owner, {
    anchors: seqs('anchors'),
    changes: seqs('changes'),
  });
  const checked = await checkSignedHeads(records, hashes, {
    owner,
    verifier,
    firstIndex: cursor.signed.index,
  });
  if (!checked.ok) return checked;
  if (!final) return { ok: true, count: checked.heads.length };
  let newest: SignedHead | null = checked.heads.reduce<SignedHead | null>(newerHead, null);
  if (newestRecord !== undefined) {
    const latest = await checkSignedHeads([newestRecord], hashes, { owner, verifier });
    if (!latest.ok) return latest;
    newest = newerHead(newest, latest.heads[0]!);
  }
  const summary = signedSummary(newest, checked.heads.length, {
    anchors: cursor.anchors.seq,
    changes: cursor.changes.seq,
  });
  return summary;
}
