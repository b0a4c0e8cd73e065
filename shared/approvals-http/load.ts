/** Loading an approval for a verified link: only after the signature checked out. */
import { type ApprovalLinkClaims, argsHash } from '../approvals/index.ts';
import type { RunStore } from '../core/store-port.ts';
import type { Approval } from '../schemas/approval.ts';
import type { Run } from '../schemas/run.ts';
import type { ApprovalLogger } from './deps.ts';
import { closedResult, outcome, type PageResult } from './results.ts';

export type Loaded = { ok: true; approval: Approval; run: Run } | { ok: false; result: PageResult };

/**
 * The approval behind a verified link, if it can still be decided. The link must name one of its approvers
 * and the hash of its exact arguments, recomputed from the stored arguments (not just the stored hash).
 */
export async function loadForLink(
  deps: { store: RunStore; logger: ApprovalLogger },
  claims: ApprovalLinkClaims,
  nowMs: number,
  /** The run the page's form names (unsigned: only which item to read alongside; the approval's decides). */
  runIdHint?: string,
): Promise<Loaded> {
  const both = await readBoth(deps.store, claims.approvalId, runIdHint);
  const approval = both?.approval;
  if (approval === undefined) return { ok: false, result: outcome({ kind: 'unknown_approval' }) };
  if (!approval.approvers.includes(claims.approver)) {
    deps.logger.warn('approval link names no approver of this approval', { approvalId: approval.approvalId });
    return { ok: false, result: outcome({ kind: 'invalid_link' }) };
  }
  const storedHash = argsHash(approval.tool, approval.args);
  if (claims.argsHash !== approval.argsHash || storedHash !== approval.argsHash) {
    deps.logger.error('approval arguments do not match the link', {
      approvalId: approval.approvalId,
      recordHashMatches: storedHash === approval.argsHash,
    });
    return { ok: false, result: outcome({ kind: 'invalid_link' }) };
  }
  const run = both?.run;
  const closed = closedResult(approval, run, nowMs);
  if (closed !== undefined || run === undefined) {
    return { ok: false, result: closed ?? outcome({ kind: 'unknown_approval' }) };
  }
  return { ok: true, approval, run };
}

/** The approval and its run: one request when the store can batch them and the hint names the run. */
async function readBoth(store: RunStore, approvalId: string, runIdHint: string | undefined) {
  if (store.getApprovalWithRun) return store.getApprovalWithRun(approvalId, runIdHint);
  const approval = await store.getApproval(approvalId);
  return approval && { approval, run: await store.getRun(approval.runId) };
}
