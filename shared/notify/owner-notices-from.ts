/**
 * Owner notices made from the records the handlers that end runs already hold: a run that ended `failed` or
 * `denied`, an approval that expired or reached nobody. Pure: no clock, no SDK.
 */
import { cutText } from '../core/byte-caps.ts';
import type { Approval } from '../schemas/approval.ts';
import type { Run } from '../schemas/run.ts';
import type { OwnerNotice } from './owner-notice.ts';

/** How many refusals a notice lists (the run record has them all). */
const MAX_LISTED = 5;
const MAX_REASON = 500;

/** `<api>/v1/runs/<id>`: where the owner reads the run (`http://127.0.0.1:<port>` locally). */
export const runUrlFor = (apiBaseUrl: string, runId: string): string =>
  `${apiBaseUrl.replace(/\/+$/, '')}/v1/runs/${encodeURIComponent(runId)}`;

// Defence in depth: a recorded error never holds an approval link, but if one did it must not be mailed on.
const APPROVAL_LINK = /\S*\/approvals\/\S*[?&]t=\S*/g;
const short = (text: string) => cutText(text.replace(APPROVAL_LINK, '[approval link removed]'), MAX_REASON);

/** The notice for a run that ended `failed` or `denied`; undefined for any other status. */
export function runEndedNotice(run: Run, apiBaseUrl: string): OwnerNotice | undefined {
  if (run.status !== 'failed' && run.status !== 'denied') return undefined;
  const refused = (run.degraded?.refused ?? []).slice(0, MAX_LISTED).map((r) => ({
    tool: r.tool,
    reason: short(r.reason),
  }));
  const reason = run.error
    ? `${run.error.name}: ${run.error.message}`
    : run.degraded
      ? `the model finished, but ${run.degraded.count} call(s) it asked for were refused; the result was still delivered`
      : `the run ended ${run.status}`;
  return {
    owner: run.owner,
    kind: run.status === 'failed' ? 'run_failed' : 'run_denied',
    workflowName: run.workflowName,
    runId: run.runId,
    status: run.status,
    ...(run.stopReason ? { stopReason: run.stopReason } : {}),
    reason: short(reason),
    ...(refused.length > 0 ? { refused } : {}),
    runUrl: runUrlFor(apiBaseUrl, run.runId),
  };
}

/** The notice for an approval that expired undecided or could reach no approver: its call is denied. */
export function approvalEndedNotice(
  approval: Approval,
  kind: 'approval_expired' | 'approval_undeliverable',
  apiBaseUrl: string,
): OwnerNotice {
  const reason =
    kind === 'approval_expired'
      ? `no approver (${approval.approvers.join(', ')}) decided before ${approval.expiresAt}, so the call was denied; the run goes on without it`
      : `no approver (${approval.approvers.join(', ')}) could be reached by this deployment's notices, so the call was denied at once; the run goes on without it`;
  return {
    owner: approval.owner,
    kind,
    workflowName: approval.workflowName,
    runId: approval.runId,
    status: approval.status,
    reason: short(reason),
    refused: [{ tool: approval.tool, reason: kind === 'approval_expired' ? 'expired' : 'undeliverable' }],
    runUrl: runUrlFor(apiBaseUrl, approval.runId),
  };
}
