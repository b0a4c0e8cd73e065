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
): Promise<Loaded> {
  const approval = await deps.store.getApproval(claims.approvalId);
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
  const run = await deps.store.getRun(approval.runId);
  const closed = closedResult(approval, run, nowMs);
  if (closed !== undefined || run === undefined) {
    return { ok: false, result: closed ?? outcome({ kind: 'unknown_approval' }) };
  }
  return { ok: true, approval, run };
}
