/**
 * RequestApproval's one write, made after the notices went out: the task token on every pending approval of the
 * wait, one `approval_notified` entry per notice the channel accepted, and the approvals nobody could be sent
 * denied as `undeliverable` (fail closed), all in one fenced commit of the run.
 *
 * Links go out before the token is stored. The approval pages take no decision on an approval without a token
 * (results.ts `requestNotOpen`): a decision could resume nothing, and when this commit fails for good (a store
 * fault other than a conflict, after the SDK's retries) the task fails, the token is never stored and the
 * delivered links stay dead, whether or not the state machine's Catch then manages to record the run failed
 * (test/approvals-http/request-store-fault.test.ts). The decision itself stays fenced on the token it read
 * (approval-ops.ts), so one racing this commit (a retried RequestApproval replacing an older token) is never
 * lost: this commit fails its condition, reads again, sees the approval decided and leaves it, and the caller
 * answers the wait itself when nothing is left pending. Test: test/approvals-http/request-decision-race.test.ts.
 */
import { withDecisions } from '../core/approval-record.ts';
import { isoAt, RunHandle } from '../core/engine.ts';
import type { Clock } from '../core/ports.ts';
import { ApprovalAlreadyDecidedError, RunConflictError } from '../core/store-errors.ts';
import type { AuditInput, RunStore } from '../core/store-port.ts';
import { isLaterWait } from '../graph-run/wait-fence.ts';
import type { Approval } from '../schemas/approval.ts';
import { isTerminalRunStatus } from '../schemas/run.ts';
import { backOff } from '../store/backoff.ts';
import { readWaiting, type Waiting, type WaitScope } from './waiting.ts';

/** Why an approval reached nobody: per approver, `unreachable` (no channel reaches them) or the send error. */
export type Unreached = { approval: Approval; approvers: { approver: string; why: string }[] };

/** A notice handed to the channel: which approval, which approver. */
export type Sent = { approvalId: string; approver: string };

/** What the notices came to, for the commit. */
export type RequestOutcome = {
  taskToken: string;
  /** Which attempt of the wait `taskToken` is (wait-fence.ts); absent from an earlier definition's executions. */
  fence?: string | undefined;
  channel: string;
  notified: Sent[];
  /** Live approvals no approver could be sent, by id: denied as undeliverable if still pending. */
  unreached: ReadonlyMap<string, Unreached>;
};

/**
 * What the commit recorded: the approvals still waiting (on this token), those denied as undeliverable, and the
 * ids of those another attempt of the wait holds (a later one, or, unfenced, one that stored its token first).
 */
export type Recorded = { pending: Approval[]; denied: Unreached[]; superseded: string[] };

const notifiedAudit = (outcome: RequestOutcome): AuditInput[] =>
  outcome.notified.map(({ approvalId, approver }) => ({
    type: 'approval_notified' as const,
    actor: 'system',
    data: { approvalId, approver, channel: outcome.channel },
  }));

const undeliverableAudit = (denied: Unreached[]): AuditInput[] =>
  denied.map(({ approval, approvers }) => ({
    type: 'approval_undeliverable' as const,
    actor: 'system',
    data: { approvalId: approval.approvalId, tool: approval.tool, approvers },
  }));

/**
 * Commits made before giving up on a run that keeps changing. The links are out by then: a conflict that ends
 * the task sends the run to MarkFailed (or, past the state machine's own Retry on it, re-sends the links), so
 * the commit waits it out: with the backoff below, about 3 s on average and 7 s at most of waiting in all,
 * well inside the function's timeout (30 s, RUNTIME_FUNCTION_DEFAULTS).
 */
export const RECORD_ATTEMPTS = 12;
/** Backoff between those commits: full jitter up to min(1 s, 25 ms × 2^attempt) (store/backoff.ts). */
const RECORD_BACKOFF = { baseMs: 25, capMs: 1000 };

/**
 * Commits `outcome` against the run and approvals as `first` read them; when another write got there first
 * (a decision, an expiry, a turn, another step of a graph run, another attempt of the wait), waits a jittered
 * moment, reads them again (one request) and commits what still applies, up to RECORD_ATTEMPTS times.
 *
 * Which approvals this attempt writes its token to: those still pending in the wait whose token is the one
 * first read, or, once re-read, one an earlier attempt stored (fence below this one's: a late invocation of a
 * retried task that committed first; an unfenced token when this one is fenced). Never one a later attempt
 * holds (its fence above this one's): that one's token is live and this one's is dead
 * (shared/graph-run/wait-fence.ts). Each write is conditional on the token as read, and a token is always
 * written with its fence, so the condition holds the fence too. An approval already holding this token (a
 * repeat of this attempt) stays as it is. Nothing is written to an ended run (its audit head may be sealed
 * into its owner's anchor chain).
 */
export async function recordRequest(
  deps: { store: RunStore; clock: Clock },
  runId: string,
  scope: WaitScope,
  first: Waiting,
  outcome: RequestOutcome,
): Promise<Recorded> {
  const tokenRead = new Map(first.approvals.map((approval) => [approval.approvalId, approval.taskToken]));
  const fenced = outcome.fence === undefined ? {} : { fence: outcome.fence };
  let state = first;
  for (let attempt = 1; ; attempt++) {
    const { run } = state;
    if (!run || isTerminalRunStatus(run.status)) return { pending: [], denied: [], superseded: [] };
    const ours = state.approvals.filter((approval) => tokenRead.has(approval.approvalId));
    const held = ours.filter((approval) => approval.taskToken === outcome.taskToken);
    const mine = ours.filter(
      (approval) =>
        approval.taskToken !== outcome.taskToken &&
        !isLaterWait(approval.fence, outcome.fence) &&
        (approval.taskToken === tokenRead.get(approval.approvalId) ||
          isLaterWait(outcome.fence, approval.fence)),
    );
    const superseded = ours
      .filter((approval) => !held.includes(approval) && !mine.includes(approval))
      .map((approval) => approval.approvalId);
    const decidedAt = isoAt(deps.clock);
    const denied: Unreached[] = mine.flatMap((approval) => {
      const unreached = outcome.unreached.get(approval.approvalId);
      const record = {
        ...approval,
        taskToken: outcome.taskToken,
        ...fenced,
        status: 'undeliverable' as const,
        decidedAt,
      };
      return unreached ? [{ approval: record, approvers: unreached.approvers }] : [];
    });
    const attached = mine
      .filter((approval) => !outcome.unreached.has(approval.approvalId))
      .map((approval) => ({ ...approval, taskToken: outcome.taskToken, ...fenced }));
    const written = [...attached, ...denied.map((d) => d.approval)];
    const audit = [...notifiedAudit(outcome), ...undeliverableAudit(denied)];
    if (written.length === 0 && audit.length === 0) return { pending: held, denied: [], superseded };
    // The token each write is conditional on: the one this read found.
    const tokenNow = new Map(mine.map((approval) => [approval.approvalId, approval.taskToken]));
    try {
      await new RunHandle(run, deps).commit({
        next: (current) =>
          withDecisions(
            current,
            denied.map((d) => d.approval),
          ),
        approvalUpdate: written.map((approval) => ({
          approval,
          expectedStatus: 'pending' as const,
          expectedTaskToken: tokenNow.get(approval.approvalId) ?? null,
        })),
        audit,
      });
      return { pending: [...held, ...attached], denied, superseded };
    } catch (error) {
      const raced = error instanceof RunConflictError || error instanceof ApprovalAlreadyDecidedError;
      if (!raced || attempt >= RECORD_ATTEMPTS) throw error;
    }
    await backOff(attempt, RECORD_BACKOFF);
    state = await readWaiting(deps.store, runId, scope, [...tokenRead.keys()]);
  }
}
