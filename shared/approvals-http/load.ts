/** Loading an approval for a verified link: only after the signature checked out. */
import { type ApprovalLinkClaims, argsHash } from '../approvals/index.ts';
import type { RunStore } from '../core/store-port.ts';
import type { Approval } from '../schemas/approval.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowHead } from '../schemas/workflow-record.ts';
import type { ApprovalLogger } from './deps.ts';
import type { PageLoad } from './form-state.ts';
import type { ReadHints } from './read-hints.ts';
import { closedResult, outcome, type PageResult } from './results.ts';

/** `head`: the approval's workflow head, when it was read with them (its `value` undefined: no such head). */
export type Loaded =
  | { ok: true; approval: Approval; run: Run; head?: { value: WorkflowHead | undefined } }
  | { ok: false; result: PageResult };

/**
 * The approval behind a verified link, if it can still be decided. The link must name one of its approvers
 * and the hash of its exact arguments, recomputed from the stored arguments (not just the stored hash).
 */
export async function loadForLink(
  deps: { store: RunStore; logger: ApprovalLogger },
  claims: ApprovalLinkClaims,
  nowMs: number,
  /** The run (and head) the link or form names (unsigned: only which items to read alongside; the approval's decide). */
  hints: ReadHints = {},
  /**
   * The approval and its run as the page read them (its form's sealed state, form-state.ts): checked here like a
   * fresh read, instead of one. Only a decision uses it, and its commit is conditional on what it read.
   */
  carried?: PageLoad,
): Promise<Loaded> {
  const both =
    carried?.approval.approvalId === claims.approvalId
      ? carried
      : await readBoth(deps.store, claims.approvalId, hints);
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
  const head = both && 'head' in both ? both.head : undefined;
  return { ok: true, approval, run, ...(head ? { head } : {}) };
}

/**
 * The approval and its run (and its workflow head): one request when the store can batch them and the hints
 * name the run (and the head).
 */
async function readBoth(store: RunStore, approvalId: string, hints: ReadHints) {
  if (store.getApprovalWithRun) return store.getApprovalWithRun(approvalId, hints.runId, hints.head);
  const approval = await store.getApproval(approvalId);
  return approval && { approval, run: await store.getRun(approval.runId) };
}
