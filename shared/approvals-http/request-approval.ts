/**
 * What the `request-approval` Lambda does when the execution parks on `waitForTaskToken`: store the task
 * token on the run's pending approvals, send each reachable approver a signed link, audit each notice handed
 * to a channel that reaches its approver (never the link). An approval that reaches nobody is denied at once
 * (`undeliverable`), its owner is told, and the wait is answered so the run goes on without the call.
 */
import {
  approvalPostUrl,
  approvalUrl,
  type Keyring,
  type KeyringSource,
  keyringSourceOf,
  signApprovalLink,
} from '../approvals/index.ts';
import { attachTaskTokenToRun, pendingApprovals } from '../core/approval-ops.ts';
import { RunHandle } from '../core/engine.ts';
import type { Clock } from '../core/ports.ts';
import { RunConflictError } from '../core/store-errors.ts';
import type { AuditInput, RunStore } from '../core/store-port.ts';
import {
  approvalEndedNotice,
  argsPreview,
  type Notifier,
  type OwnerNoticeDeps,
  sendOwnerNotice,
} from '../notify/index.ts';
import type { Approval } from '../schemas/approval.ts';
import type { Run } from '../schemas/run.ts';
import { type ApprovalLogger, consoleLogger } from './deps.ts';
import type { TaskTokenAnswer, TaskTokensPort } from './task-tokens.ts';
import { denyUndeliverable, type Unreached } from './undeliverable.ts';

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

type Sent = { approvalId: string; approver: string };

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
  /** Nothing was pending (decided before the token arrived, or the run moved on): the wait was answered at once. */
  | { status: 'not_waiting'; answer: TaskTokenAnswer };

/** Appends entries to the run's chain in a fenced commit that changes nothing else; retried on a lost race. */
async function appendAudit(
  deps: RequestApprovalDeps,
  runId: string,
  audit: AuditInput[],
  known?: Run,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    // The run as the token's commit left it, on the first try: a write meanwhile fails the fence, then re-read.
    const run = attempt === 1 && known ? known : await deps.store.getRun(runId);
    if (run === undefined) return;
    try {
      await new RunHandle(run, deps).commit({ audit });
      return;
    } catch (error) {
      if (!(error instanceof RunConflictError) || attempt >= 5) throw error;
    }
  }
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
    url: approvalUrl(deps.publicBaseUrl, approval.approvalId, token),
  });
}

/**
 * Attaches `taskToken` (replacing an older one) to the run's pending approvals (with `approvalId`, a graph
 * step's wait: to that one only), sends every reachable approver of every such approval
 * their own signed link, and records one `approval_notified` entry (with the channel) per notice the channel
 * accepted. An approval that no approver could be sent (none reachable, or every send failed) is denied at
 * once as `undeliverable` and its owner told; if nothing is left pending, the wait is answered at once.
 */
export async function requestApproval(
  deps: RequestApprovalDeps,
  input: { runId: string; taskToken: string; approvalId?: string | undefined },
): Promise<RequestApprovalResult> {
  const logger = deps.logger ?? consoleLogger;
  const { runId, taskToken, approvalId } = input;
  // A misconfigured base URL fails here, loudly, not as one failed notice per approver.
  approvalPostUrl(deps.publicBaseUrl, 'apr_0000000000');
  // A graph step's wait asks for its own approval only (`approvalId`); a turn's wait for all of its run's.
  const { approvals: attached, run: attachedRun } = await attachTaskTokenToRun(
    deps,
    runId,
    taskToken,
    approvalId,
  );
  if (attached.length === 0) {
    const answer = await deps.taskTokens.sendSuccess(taskToken, { runId, nothingPending: true });
    logger.info('no approval pending; wait answered at once', { runId, answer });
    return { status: 'not_waiting', answer };
  }

  const nowMs = deps.clock.nowMs();
  // A link that is dead on arrival helps nobody; the wait's timeout expires the approval.
  const live = attached.filter((approval) => Date.parse(approval.expiresAt) > nowMs);
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

  if (notified.length > 0) {
    await appendAudit(
      deps,
      runId,
      notified.map(({ approvalId, approver }) => ({
        type: 'approval_notified' as const,
        actor: 'system',
        data: { approvalId, approver, channel: deps.notifier.channel },
      })),
      attachedRun,
    );
  }
  logger.info('approval notices sent', { runId, channel: deps.notifier.channel, notified, failed });
  const denied = await denyUndeliverable(deps, runId, [...unreached.values()]);
  if (denied.length === 0) return { status: 'notified', notified, failed, undeliverable: [] };

  const undeliverable = denied.map((approval) => approval.approvalId);
  logger.error('approval undeliverable: no approver could be reached; the call is denied', {
    runId,
    channel: deps.notifier.channel,
    undeliverable: [...unreached.values()].map((u) => ({
      approvalId: u.approval.approvalId,
      approvers: u.approvers,
    })),
  });
  for (const approval of denied) {
    const notice = approvalEndedNotice(approval, 'approval_undeliverable', deps.owners?.apiBaseUrl ?? '');
    await sendOwnerNotice(deps.owners?.notifier, notice, logger);
  }
  // Nothing left to wait for: go on at once, so the Turn tells the model no approver could be reached.
  const stillPending = (await pendingApprovals(deps.store, runId)).filter(
    (approval) => approvalId === undefined || approval.approvalId === approvalId,
  );
  if (stillPending.length > 0) return { status: 'notified', notified, failed, undeliverable };
  const answer = await deps.taskTokens.sendSuccess(taskToken, { runId, undeliverable });
  return { status: 'undeliverable', undeliverable, answer };
}
