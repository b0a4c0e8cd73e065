/**
 * What a RequestApproval wait is for, read from the store: the run and the pending approvals its wait covers.
 * With the approval ids known beforehand (a graph step's own approval, or the ids the parking turn put in the
 * state), the run and its approvals are one request (`getRunWithApprovals`); without them (a state from an
 * earlier release), the run is read first to learn them.
 */
import type { RunStore } from '../core/store-port.ts';
import type { Approval } from '../schemas/approval.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';

/** Which wait: a graph step's (`approvalId`, its own approval) or a turn's (every approval its run waits on). */
export type WaitScope = {
  approvalId?: string | undefined;
  /** The ids the parking turn waits on, as the state carried them: only which items to read with the run. */
  approvalIds?: readonly string[] | undefined;
};

/** The run as read, and the pending approvals of this wait (none when the run no longer waits on them). */
export type Waiting = { run: Run | undefined; approvals: Approval[] };

/**
 * Whether `run` still waits in this scope: a turn's wait with the run `awaiting_approval`; a graph step's wait
 * with the run not ended (it stays `running`) and the approval still among the run's pending ones.
 */
export function isWaiting(run: Run, scope: WaitScope): boolean {
  if (scope.approvalId === undefined) return run.status === 'awaiting_approval';
  return !isTerminalRunStatus(run.status) && run.pendingApprovalIds.includes(scope.approvalId);
}

/** The ids of the run's pending approvals this wait covers (the run's list decides, never the state's). */
const idsOfWait = (run: Run, scope: WaitScope): string[] =>
  run.pendingApprovalIds.filter((id) => scope.approvalId === undefined || id === scope.approvalId);

/**
 * Reads the run and the pending approvals of this wait. `known` ids are read with the run in one request; any
 * id of the run's list not among them is read after it (a state from an earlier release carries none).
 */
export async function readWaiting(
  store: RunStore,
  runId: string,
  scope: WaitScope,
  known: readonly string[] = scope.approvalId !== undefined ? [scope.approvalId] : (scope.approvalIds ?? []),
): Promise<Waiting> {
  const both =
    known.length > 0 && store.getRunWithApprovals
      ? await store.getRunWithApprovals(runId, known)
      : { run: await store.getRun(runId), approvals: [] as Approval[] };
  const { run } = both;
  if (!run || !isWaiting(run, scope)) return { run, approvals: [] };
  const wanted = idsOfWait(run, scope);
  const byId = new Map(both.approvals.map((approval) => [approval.approvalId, approval]));
  const missing = wanted.filter((id) => !byId.has(id));
  const read = await Promise.all(missing.map((id) => store.getApproval(id)));
  for (const approval of read) if (approval?.runId === runId) byId.set(approval.approvalId, approval);
  const approvals = wanted
    .map((id) => byId.get(id))
    .filter((approval): approval is Approval => approval?.status === 'pending');
  return { run, approvals };
}
