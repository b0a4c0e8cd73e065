/**
 * What the `request-approval` Lambda does when the execution parks on `waitForTaskToken`: store the task
 * token on the run's pending approvals, send each approver a signed link, audit each notice (never the link).
 */
import {
  approvalPostUrl,
  approvalUrl,
  type Keyring,
  type KeyringSource,
  keyringSourceOf,
  signApprovalLink,
} from '../approvals/index.ts';
import { attachTaskToken } from '../core/approval-ops.ts';
import { RunHandle } from '../core/engine.ts';
import type { Clock } from '../core/ports.ts';
import { RunConflictError } from '../core/store-errors.ts';
import type { AuditInput, RunStore } from '../core/store-port.ts';
import { argsPreview, type Notifier } from '../notify/index.ts';
import type { Approval } from '../schemas/approval.ts';
import { type ApprovalLogger, consoleLogger } from './deps.ts';
import { ApprovalNotifyError } from './errors.ts';
import type { TaskTokenAnswer, TaskTokensPort } from './task-tokens.ts';

/** Dependencies of `requestApproval`. */
export type RequestApprovalDeps = {
  store: RunStore;
  clock: Clock;
  /** Signs with `current`; a live source (`cachedKeyring`) picks up a rotated key within its TTL. */
  keyring: Keyring | KeyringSource;
  /** Origin (plus stage path): links are `<base>/approvals/<id>?t=…`. See `publicBaseUrlFrom`. */
  publicBaseUrl: string;
  notifier: Notifier;
  taskTokens: TaskTokensPort;
  logger?: ApprovalLogger;
};

type Sent = { approvalId: string; approver: string };

export type RequestApprovalResult =
  | { status: 'notified'; notified: Sent[]; failed: (Sent & { error: string })[] }
  /** Nothing was pending (decided before the token arrived, or the run moved on): the wait was answered at once. */
  | { status: 'not_waiting'; answer: TaskTokenAnswer };

/** Appends entries to the run's chain in a fenced commit that changes nothing else; retried on a lost race. */
async function appendAudit(deps: RequestApprovalDeps, runId: string, audit: AuditInput[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const run = await deps.store.getRun(runId);
    if (run === undefined) return;
    try {
      await new RunHandle(run, deps).commit({ audit });
      return;
    } catch (error) {
      if (!(error instanceof RunConflictError) || attempt >= 5) throw error;
    }
  }
}

/**
 * Attaches `taskToken` (replacing an older one), notifies every approver of every pending approval with
 * their own signed link, and records one `approval_notified` entry per notice sent. If nothing is pending
 * any more, answers the wait at once so the execution does not sit until its timeout. Throws
 * `ApprovalNotifyError` when notices were due and none could be sent.
 */
export async function requestApproval(
  deps: RequestApprovalDeps,
  input: { runId: string; taskToken: string },
): Promise<RequestApprovalResult> {
  const logger = deps.logger ?? consoleLogger;
  const { runId, taskToken } = input;
  // A misconfigured base URL fails here, loudly, not as one failed notice per approver.
  approvalPostUrl(deps.publicBaseUrl, 'apr_0000000000');
  const attached = await attachTaskToken(deps, runId, taskToken);
  if (attached.length === 0) {
    const answer = await deps.taskTokens.sendSuccess(taskToken, { runId, nothingPending: true });
    logger.info('no approval pending; wait answered at once', { runId, answer });
    return { status: 'not_waiting', answer };
  }

  const nowMs = deps.clock.nowMs();
  const due: { approval: Approval; approver: string }[] = [];
  for (const approval of attached) {
    // A link that is dead on arrival helps nobody; the wait's timeout expires the approval.
    if (Date.parse(approval.expiresAt) <= nowMs) continue;
    for (const approver of new Set(approval.approvers)) due.push({ approval, approver });
  }
  const keyring = due.length > 0 ? await keyringSourceOf(deps.keyring).get() : undefined;
  const settled = await Promise.allSettled(
    due.map(({ approval, approver }) => {
      const token = signApprovalLink(
        {
          approvalId: approval.approvalId,
          approver,
          expiresAtMs: Date.parse(approval.expiresAt),
          argsHash: approval.argsHash,
        },
        keyring as Keyring,
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
    }),
  );

  const notified: Sent[] = [];
  const failed: (Sent & { error: string })[] = [];
  settled.forEach((result, i) => {
    const { approval, approver } = due[i]!;
    const sent = { approvalId: approval.approvalId, approver };
    if (result.status === 'fulfilled') notified.push(sent);
    else failed.push({ ...sent, error: (result.reason as Error | undefined)?.name ?? 'Error' });
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
    );
  }
  logger.info('approval notices sent', { runId, channel: deps.notifier.channel, notified, failed });
  if (failed.length > 0 && notified.length === 0) {
    throw new ApprovalNotifyError(
      runId,
      failed.map((f) => `${f.approvalId}/${f.approver}: ${f.error}`),
    );
  }
  return { status: 'notified', notified, failed };
}
