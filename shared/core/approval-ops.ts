/**
 * Approval operations outside a turn: deciding (once) and expiring on timeout (fail closed). Each is a fenced
 * commit with its audit entry. Attaching the Step Functions task token is RequestApproval's
 * (shared/approvals-http/request-record.ts).
 */
import type { Approval } from '../schemas/approval.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import { withDecisions } from './approval-record.ts';
import { isoAt, RunHandle } from './engine.ts';
import type { Clock } from './ports.ts';
import { ApprovalAlreadyDecidedError, RunConflictError } from './store-errors.ts';
import type { RunStore } from './store-port.ts';

type Deps = { store: RunStore; clock: Clock };

/** Retries a fenced operation when an unrelated write moved the run's revision. */
async function withRunRetry<T>(attempt: () => Promise<T>, tries = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof RunConflictError) || i >= tries) throw error;
    }
  }
}

/** The run's pending approvals, read consistently. */
export async function pendingApprovals(store: RunStore, runId: string): Promise<Approval[]> {
  const run = await store.getRun(runId);
  return run ? pendingApprovalsOf(store, run) : [];
}

/** The pending approvals of a run already read (its `pendingApprovalIds`), without reading it again. */
async function pendingApprovalsOf(store: RunStore, run: Run): Promise<Approval[]> {
  const approvals = await Promise.all(run.pendingApprovalIds.map((id) => store.getApproval(id)));
  return approvals.filter((approval): approval is Approval => approval?.status === 'pending');
}

/**
 * Whether another approval the run waits on is still pending. Only the others are read: this one was just
 * decided by a conditional write, and a run waiting on one approval (the common case) needs no read at all.
 */
async function othersPending(store: RunStore, waitingOn: string[], decided: string): Promise<boolean> {
  const others = waitingOn.filter((id) => id !== decided);
  const approvals = await Promise.all(others.map((id) => store.getApproval(id)));
  return approvals.some((approval) => approval?.status === 'pending');
}

export type DecisionResult = {
  approval: Approval;
  /** The task token to resume the execution with, when this decision was the last one pending. */
  resumeToken?: string;
};

/**
 * Records an approver's decision, once. A decided, expired or foreign approval is refused. `loaded` is the
 * approval and its run as the caller just read them (the decision page checks the link against both): the
 * first try uses them instead of reading again. Safe with a stale read: the write is conditional on the
 * approval still pending and on the run's revision, so a decision made meanwhile refuses this one, and a run
 * that moved is read again.
 */
export async function decideApproval(
  deps: Deps,
  args: {
    approvalId: string;
    approver: string;
    decision: 'approved' | 'denied';
    /**
     * The workflow head's revision as the approver's page saw it: the decision is recorded only while the head
     * is still there (RunChange.headAt), or refused with WorkflowHeadChangedError, nothing written.
     */
    headAt?: { owner: string; workflowId: string; rev: number };
  },
  loaded?: { approval: Approval; run: Run },
): Promise<DecisionResult> {
  let given = loaded?.approval.approvalId === args.approvalId ? loaded : undefined;
  return withRunRetry(async () => {
    const first = given;
    given = undefined;
    const approval = first?.approval ?? (await deps.store.getApproval(args.approvalId));
    if (!approval) throw new ApprovalAlreadyDecidedError(args.approvalId, 'unknown');
    if (approval.status !== 'pending')
      throw new ApprovalAlreadyDecidedError(args.approvalId, approval.status);
    if (!approval.approvers.includes(args.approver))
      throw new ApprovalAlreadyDecidedError(args.approvalId, 'not an approver');
    if (Date.parse(approval.expiresAt) <= deps.clock.nowMs())
      throw new ApprovalAlreadyDecidedError(args.approvalId, 'expired');
    const run = first?.run.runId === approval.runId ? first.run : await deps.store.getRun(approval.runId);
    if (!run || isTerminalRunStatus(run.status))
      throw new ApprovalAlreadyDecidedError(args.approvalId, 'run ended');
    const decided: Approval = {
      ...approval,
      status: args.decision,
      decidedAt: isoAt(deps.clock),
      decidedBy: args.approver,
    };
    const handle = new RunHandle(run, deps);
    await handle.commit({
      // The decision rides on the run item too, so the resuming turn need not read the approval.
      next: (current) => withDecisions(current, [decided]),
      ...(args.headAt ? { headAt: args.headAt } : {}),
      // Fenced on the token as read too: the approval and the run may have been read apart (a BatchGetItem is
      // no snapshot), and a token attached in between must not be dropped, or the run would not be resumed.
      approvalUpdate: [
        { approval: decided, expectedStatus: 'pending', expectedTaskToken: approval.taskToken ?? null },
      ],
      audit: [
        {
          type: 'approval_decided',
          actor: `approver:${args.approver}`,
          data: {
            approvalId: approval.approvalId,
            tool: approval.tool,
            argsHash: approval.argsHash,
            decision: args.decision,
          },
        },
      ],
    });
    // A graph step's approval has a wait of its own: its decision answers it whatever else is pending.
    const stillPending =
      approval.step === undefined &&
      (await othersPending(deps.store, run.pendingApprovalIds, approval.approvalId));
    return {
      approval: decided,
      ...(!stillPending && decided.taskToken ? { resumeToken: decided.taskToken } : {}),
    };
  });
}

/** Marks the run's expired pending approvals `expired` (fail closed). Returns how many it expired. */
export async function expireApprovals(deps: Deps, runId: string): Promise<number> {
  return withRunRetry(async () => {
    const run = await deps.store.getRun(runId);
    if (!run) return 0;
    // Step Functions' timer and ours can differ by a moment: a second of slack avoids a needless extra wait.
    const due = (await pendingApprovalsOf(deps.store, run)).filter(
      (approval) => Date.parse(approval.expiresAt) <= deps.clock.nowMs() + 1000,
    );
    if (due.length === 0) return 0;
    const now = isoAt(deps.clock);
    const expired = due.map((approval) => ({ ...approval, status: 'expired' as const, decidedAt: now }));
    await new RunHandle(run, deps).commit({
      next: (current) => withDecisions(current, expired),
      approvalUpdate: expired.map((approval, i) => ({
        approval,
        expectedStatus: 'pending' as const,
        expectedTaskToken: due[i]!.taskToken ?? null,
      })),
      audit: due.map((approval) => ({
        type: 'approval_expired' as const,
        actor: 'system',
        data: { approvalId: approval.approvalId, tool: approval.tool, expiresAt: approval.expiresAt },
      })),
    });
    return due.length;
  });
}
