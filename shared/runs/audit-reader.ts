/**
 * A client's read of a whole audit answer over the paged API (GET /v1/runs/{id}/audit, GET /v1/audit): follows
 * `nextToken` and joins the pages. Each page is verified by the server from a checkpoint (`from`); the pages
 * verify the whole chain only when each links from where the one before ended, so that is checked here too.
 */
import type { AuditEntry, OwnerAnchor, SignedHeadVerification } from '../audit/index.ts';
import { walkPages } from './page-walk.ts';

type Checkpoint = { seq: number; prevHash: string };
/** A chain's verification as the API gives it. */
export type ChainVerification =
  | { ok: true; count: number; head: string }
  | { ok: false; firstBrokenSeq: number; index?: number; reason: string; message: string };

/** Joins pages' verifications of one chain, in order: the first failure, or a break between two pages. */
export function joinChainPages(pages: readonly { from: Checkpoint; verification: ChainVerification }[]) {
  let count = 0;
  let head: string | undefined;
  for (const [page, { from, verification }] of pages.entries()) {
    const seq = (pages[0]?.from.seq ?? 0) + count;
    if (page > 0 && (from.seq !== seq || from.prevHash !== head)) {
      return {
        ok: false as const,
        firstBrokenSeq: seq,
        index: count,
        reason: 'page_gap',
        message: `page ${page} starts at seq ${from.seq} after ${from.prevHash}, not where page ${page - 1} ended (seq ${seq})`,
      };
    }
    if (!verification.ok) return { ...verification, index: count + (verification.index ?? 0) };
    count += verification.count;
    head = verification.head;
  }
  return { ok: true as const, count, head: head ?? pages[0]?.from.prevHash ?? '' };
}

export type RunAuditPage = {
  runId: string;
  entries: AuditEntry[];
  from: Checkpoint;
  verification: ChainVerification;
  anchor: OwnerAnchor | null;
  anchored: boolean;
  nextToken?: string;
};

/** A run's whole chain, its joined verification, and its anchor (from the last page). */
export async function readRunAudit(
  runId: string,
  get: (path: string) => Promise<RunAuditPage>,
): Promise<Omit<RunAuditPage, 'nextToken' | 'from'> & { pages: number }> {
  const pages: RunAuditPage[] = [];
  await walkPages(`/v1/runs/${encodeURIComponent(runId)}/audit`, get, (page) => pages.push(page));
  const last = pages.at(-1)!;
  const verification = joinChainPages(pages);
  return {
    runId,
    entries: pages.flatMap((page) => page.entries),
    verification,
    anchor: last.anchor,
    anchored: verification.ok && last.anchored,
    pages: pages.length,
  };
}

/**
 * A run's chain read again and again as it grows (`wf run start --wait`): a page that has a next token is complete and
 * is kept; each read starts at the last page read (the one that may have grown) and follows the tokens from
 * there, instead of reading the chain from its first page every time.
 */
export function followRunAudit(runId: string, get: (path: string) => Promise<RunAuditPage>) {
  const complete: RunAuditPage[] = [];
  /** The token of the last page read (undefined: the first page). */
  let lastToken: string | undefined;
  return async (): Promise<{ entries: AuditEntry[]; verification: ChainVerification }> => {
    const fresh: RunAuditPage[] = [];
    await walkPages(
      `/v1/runs/${encodeURIComponent(runId)}/audit`,
      get,
      (page) => fresh.push(page),
      lastToken,
    );
    // Every fresh page but the last has a next token: complete, and the last is where the next read starts.
    for (const page of fresh.slice(0, -1)) {
      complete.push(page);
      lastToken = page.nextToken;
    }
    const pages = [...complete, ...fresh.slice(-1)];
    return { entries: pages.flatMap((page) => page.entries), verification: joinChainPages(pages) };
  };
}

type ChainSection = { entries: unknown[]; from: Checkpoint; verification: ChainVerification };
export type OwnerAuditPage = {
  owner: string;
  changes: ChainSection;
  anchors: ChainSection;
  signedHeads: { entries: unknown[]; verification: SignedHeadVerification | { ok: true; count: number } };
  nextToken?: string;
};

/**
 * An owner's whole chains, each joined as the server verified it page by page; the signed heads' verification
 * is the first page's failure, else the last page's summary with every page's count.
 */
export async function readOwnerAudit(get: (path: string) => Promise<OwnerAuditPage>) {
  const pages: OwnerAuditPage[] = [];
  await walkPages('/v1/audit', get, (page) => pages.push(page));
  const section = (name: 'changes' | 'anchors') => ({
    entries: pages.flatMap((page) => page[name].entries),
    verification: joinChainPages(pages.map((page) => page[name])),
  });
  const failed = pages.find((page) => !page.signedHeads.verification.ok)?.signedHeads.verification;
  const last = pages.at(-1)!.signedHeads.verification;
  const count = pages.reduce(
    (sum, page) => sum + (page.signedHeads.verification.ok ? page.signedHeads.verification.count : 0),
    0,
  );
  return {
    owner: pages[0]!.owner,
    changes: section('changes'),
    anchors: section('anchors'),
    signedHeads: {
      entries: pages.flatMap((page) => page.signedHeads.entries),
      verification: (failed ?? { ...last, count }) as SignedHeadVerification,
    },
    pages: pages.length,
  };
}
