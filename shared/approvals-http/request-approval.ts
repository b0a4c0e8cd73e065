/**
 * What the `request-approval` Lambda does when the execution parks on `waitForTaskToken`: read the run and the
 * pending approvals of the wait (one request when the state names them), send each reachable approver a signed
 * link, then store the task token, audit each notice handed to a channel that reaches its approver (never the
 * link) and deny at once (`undeliverable`) an approval that reached nobody, in one commit (request-record.ts).
 * When nothing is left pending (everything was decided or denied), the wait is answered at once and the run
 * goes on without waiting.
 */
import {
  approvalPostUrl,
  approvalUrl,
  type Keyring,
  type KeyringSource,
  keyringSourceOf,
  signApprovalLink,
} from '../approvals/index.ts';
import type { Clock } from '../core/ports.ts';
import type { RunStore } from '../core/store-port.ts';
import { isLaterWait } from '../graph-run/wait-fence.ts';
import {
  approvalEndedNotice,
  argsPreview,
  type Notifier,
  type OwnerNoticeDeps,
  sendOwnerNotice,
} from '../notify/index.ts';
import type { Approval } from '../schemas/approval.ts';
import { type ApprovalLogger, consoleLogger } from './deps.ts';
import { hintParams } from './read-hints.ts';
import { type Recorded, recordRequest, type Sent, type Unreached } from './request-record.ts';
import type { TaskTokenAnswer, TaskTokensPort } from './task-tokens.ts';
import { readWaiting, type WaitScope } from './waiting.ts';

/** Dependencies of `requestApproval`. */
export type RequestApprovalDeps = {
  store: RunStore;
  clock: Clock;
  /** Signs with `current`; a live source (`cachedKeyring`) picks up a rotated key within its TTL. */
  keyring: Keyring | KeyringSource;
  /** Origin (plus stage path): links are `<base>/approvals/<id>?t=…`. See `publicBaseUrlFrom`. */
  publicBaseUrl: string;
  /** The approvers' channel; `reaches` decides who is sent a link at all. */
  notifier: Notifier;
  taskTokens: TaskTokensPort;
  /** Where the owner hears of an undeliverable approval. Without it, that is only logged (as an error). */
  owners?: OwnerNoticeDeps;
  logger?: ApprovalLogger;
};

export type RequestApprovalResult =
  | {
      status: 'notified';
      notified: Sent[];
      failed: (Sent & { error: string })[];
      /** Approvals denied at once because no approver could be reached (others still wait). */
      undeliverable: string[];
    }
  /** Every pending approval reached nobody: all denied as undeliverable, and the wait answered at once. */
  | { status: 'undeliverable'; undeliverable: string[]; answer: TaskTokenAnswer }
  /**
   * Nothing was pending (decided before the token arrived, or the run moved on), or everything was decided
   * while the notices went out (`notified`): the wait was answered at once.
   */
  | { status: 'not_waiting'; answer: TaskTokenAnswer; notified?: Sent[] }
  /**
   * A later attempt of this wait (a retry of the task, whose invocation this one outlived) holds the approvals:
   * nothing sent (unless the links were out before it stored its token), nothing stored, the wait not answered.
   */
  | { status: 'superseded' }
  /** This attempt's token is already stored (a repeated invocation of one attempt): nothing sent again. */
  | { status: 'already_requested' };

/** The link with the read hints of its approval (read-hints.ts): the page reads everything in one request. */
function withHints(link: string, approval: Approval): string {
  const url = new URL(link);
  for (const [name, value] of Object.entries(hintParams(approval))) url.searchParams.set(name, value);
  return url.toString();
}

/** Signs this approver's link and hands the notice to the channel. */
function sendNotice(
  deps: RequestApprovalDeps,
  keyring: Keyring,
  runId: string,
  approval: Approval,
  approver: string,
) {
  const token = signApprovalLink(
    {
      approvalId: approval.approvalId,
      approver,
      expiresAtMs: Date.parse(approval.expiresAt),
      argsHash: approval.argsHash,
    },
    keyring,
  );
  return deps.notifier.notify({
    owner: approval.owner,
    approver,
    workflowName: approval.workflowName,
    runId,
    tool: approval.tool,
    argsPreview: argsPreview(approval.args),
    expiresAt: approval.expiresAt,
    url: withHints(approvalUrl(deps.publicBaseUrl, approval.approvalId, token), approval),
  });
}

/**
 * Sends every reachable approver of every pending approval of the wait their own signed link. Returns the
 * notices the channel accepted, the ones it refused, and the live approvals nobody could be sent.
 */
async function sendNotices(deps: RequestApprovalDeps, runId: string, approvals: Approval[]) {
  const nowMs = deps.clock.nowMs();
  // A link that is dead on arrival helps nobody; the wait's timeout expires the approval.
  const live = approvals.filter((approval) => Date.parse(approval.expiresAt) > nowMs);
  const unreached = new Map<string, Unreached>(
    live.map((approval) => [approval.approvalId, { approval, approvers: [] }]),
  );
  const due: { approval: Approval; approver: string }[] = [];
  for (const approval of live) {
    for (const approver of new Set(approval.approvers)) {
      if (deps.notifier.reaches(approver, approval.owner)) due.push({ approval, approver });
      else unreached.get(approval.approvalId)!.approvers.push({ approver, why: 'unreachable' });
    }
  }
  const keyring = due.length > 0 ? await keyringSourceOf(deps.keyring).get() : undefined;
  const settled = await Promise.allSettled(
    due.map(({ approval, approver }) => sendNotice(deps, keyring as Keyring, runId, approval, approver)),
  );
  const notified: Sent[] = [];
  const failed: (Sent & { error: string })[] = [];
  settled.forEach((result, i) => {
    const { approval, approver } = due[i]!;
    const sent = { approvalId: approval.approvalId, approver };
    if (result.status === 'fulfilled') {
      notified.push(sent);
      unreached.delete(approval.approvalId);
      return;
    }
    const error = (result.reason as Error | undefined)?.name ?? 'Error';
    failed.push({ ...sent, error });
    unreached.get(approval.approvalId)?.approvers.push({ approver, why: error });
  });
  return { notified, failed, unreached };
}

/** Logs and tells each owner of the approvals denied as undeliverable. */
async function tellUndeliverable(deps: RequestApprovalDeps, runId: string, denied: Recorded['denied']) {
  const logger = deps.logger ?? consoleLogger;
  logger.error('approval undeliverable: no approver could be reached; the call is denied', {
    runId,
    channel: deps.notifier.channel,
    undeliverable: denied.map((u) => ({ approvalId: u.approval.approvalId, approvers: u.approvers })),
  });
  for (const { approval } of denied) {
    const notice = approvalEndedNotice(approval, 'approval_undeliverable', deps.owners?.apiBaseUrl ?? '');
    await sendOwnerNotice(deps.owners?.notifier, notice, deps.logger ?? consoleLogger);
  }
}

/**
 * Sends every reachable approver of every pending approval of the run's wait (with `approvalId`, a graph
 * step's wait: that approval only) their own signed link, then stores `taskToken` on those approvals (replacing
 * an older one), records one `approval_notified` entry (with the channel) per notice the channel accepted, and
 * denies as `undeliverable` an approval no approver could be sent (none reachable, or every send failed), its
 * owner told, all in one commit. If nothing is left pending, the wait is answered at once.
 * `approvalIds` (from the state) only says which approvals to read with the run; the run's own list decides.
 */
export async function requestApproval(
  deps: RequestApprovalDeps,
  input: {
    runId: string;
    taskToken: string;
    approvalId?: string | undefined;
    approvalIds?: readonly string[] | undefined;
    /**
     * Which attempt of the wait this is (`waitFence`, shared/graph-run/wait-fence.ts); absent from executions
     * of a definition that does not pass it. Approvals holding a later attempt's token are left alone.
     */
    fence?: string | undefined;
  },
): Promise<RequestApprovalResult> {
  const logger = deps.logger ?? consoleLogger;
  const { runId, taskToken } = input;
  const scope: WaitScope = { approvalId: input.approvalId, approvalIds: input.approvalIds };
  // A misconfigured base URL fails here, loudly, not as one failed notice per approver.
  approvalPostUrl(deps.publicBaseUrl, 'apr_0000000000');
  const waiting = await readWaiting(deps.store, runId, scope);
  if (waiting.approvals.length === 0) {
    const answer = await deps.taskTokens.sendSuccess(taskToken, { runId, nothingPending: true });
    logger.info('no approval pending; wait answered at once', { runId, answer });
    return { status: 'not_waiting', answer };
  }

  // A late attempt (retried meanwhile) sends no links for approvals a later attempt holds; a repeat of this
  // attempt (its token already stored) sends none twice.
  const open = waiting.approvals.filter((approval) => !isLaterWait(approval.fence, input.fence));
  const due = open.filter((approval) => approval.taskToken !== taskToken);
  if (due.length === 0) {
    const status = open.length === 0 ? 'superseded' : 'already_requested';
    logger.info('approval wait already held; nothing sent', { runId, status });
    return { status };
  }

  const { notified, failed, unreached } = await sendNotices(deps, runId, due);
  logger.info('approval notices sent', { runId, channel: deps.notifier.channel, notified, failed });
  const recorded = await recordRequest(
    deps,
    runId,
    scope,
    { ...waiting, approvals: open },
    { taskToken, fence: input.fence, channel: deps.notifier.channel, notified, unreached },
  );
  if (recorded.denied.length > 0) await tellUndeliverable(deps, runId, recorded.denied);
  const undeliverable = recorded.denied.map((d) => d.approval.approvalId);
  if (recorded.pending.length > 0) return { status: 'notified', notified, failed, undeliverable };
  if (undeliverable.length === 0 && recorded.superseded.length > 0) {
    // A later attempt stored its token while these links went out: its wait is the live one, never answer it.
    logger.info('a later attempt of the wait holds its approvals; token not stored', { runId });
    return { status: 'superseded' };
  }

  // Nothing left to wait for: go on at once, so the Turn reads the decisions (or that nobody was reached).
  if (undeliverable.length > 0) {
    const answer = await deps.taskTokens.sendSuccess(taskToken, { runId, undeliverable });
    return { status: 'undeliverable', undeliverable, answer };
  }
  const answer = await deps.taskTokens.sendSuccess(taskToken, { runId, nothingPending: true });
  logger.info('every approval was decided before the token was stored; wait answered at once', {
    runId,
    answer,
  });
  return { status: 'not_waiting', answer, notified };
}
