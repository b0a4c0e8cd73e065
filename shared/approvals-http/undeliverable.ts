/**
 * Approvals that no approver could be sent: each is denied at once as `undeliverable` (fail closed), with an
 * `approval_undeliverable` audit entry, instead of a wait that can only end in expiry.
 */
import { withDecisions } from '../core/approval-record.ts';
import { isoAt, RunHandle } from '../core/engine.ts';
import type { Clock } from '../core/ports.ts';
import { ApprovalAlreadyDecidedError, RunConflictError } from '../core/store-errors.ts';
import type { RunStore } from '../core/store-port.ts';
import type { Approval } from '../schemas/approval.ts';
import { isTerminalRunStatus } from '../schemas/run.ts';

/** Why an approval reached nobody: per approver, `unreachable` (no channel reaches them) or the send error. */
export type Unreached = { approval: Approval; approvers: { approver: string; why: string }[] };

/**
 * Records each still-pending approval of `unreached` as `undeliverable` in one fenced commit (retried when a
 * concurrent write moved the run). An approval decided meanwhile is left alone. Returns those it recorded.
 */
export async function denyUndeliverable(
  deps: { store: RunStore; clock: Clock },
  runId: string,
  unreached: readonly Unreached[],
): Promise<Approval[]> {
  // Every approval reached someone: nothing to deny, nothing to read.
  if (unreached.length === 0) return [];
  for (let attempt = 1; ; attempt++) {
    const run = await deps.store.getRun(runId);
    // A turn's approvals wait with the run `awaiting_approval`; a graph step's with the run still `running`.
    const stepsOnly = unreached.every((u) => u.approval.step !== undefined);
    if (!run || (run.status !== 'awaiting_approval' && !(stepsOnly && !isTerminalRunStatus(run.status))))
      return [];
    const current = await Promise.all(unreached.map((u) => deps.store.getApproval(u.approval.approvalId)));
    const now = isoAt(deps.clock);
    const denied = unreached.flatMap((u, i) =>
      current[i]?.status === 'pending'
        ? [{ ...u, approval: { ...current[i], status: 'undeliverable' as const, decidedAt: now } }]
        : [],
    );
    if (denied.length === 0) return [];
    try {
      await new RunHandle(run, deps).commit({
        next: (current) =>
          withDecisions(
            current,
            denied.map(({ approval }) => approval),
          ),
        approvalUpdate: denied.map(({ approval }) => ({ approval, expectedStatus: 'pending' as const })),
        audit: denied.map(({ approval, approvers }) => ({
          type: 'approval_undeliverable' as const,
          actor: 'system',
          data: { approvalId: approval.approvalId, tool: approval.tool, approvers },
        })),
      });
      return denied.map(({ approval }) => approval);
    } catch (error) {
      const raced = error instanceof RunConflictError || error instanceof ApprovalAlreadyDecidedError;
      if (!raced || attempt >= 5) throw error;
    }
  }
}
