/**
 * Owner notices: a run's owner hears when a run failed, ended denied (refused calls), or when one of its
 * approvals expired or could not reach any approver. Plain text with a link to the run in the API (which
 * needs the owner's credentials); never an approval link, a task token or a credential.
 */
import { visible } from './notice.ts';
import { snsSubject } from './sns-subject.ts';

/** What the notice is about. */
export const OWNER_NOTICE_KINDS = [
  'run_failed',
  'run_denied',
  'approval_expired',
  'approval_undeliverable',
] as const;
export type OwnerNoticeKind = (typeof OWNER_NOTICE_KINDS)[number];

/** One notice to one owner. */
export type OwnerNotice = {
  owner: string;
  kind: OwnerNoticeKind;
  workflowName: string;
  runId: string;
  /** The run's status when the notice was made (`failed`, `denied`, `awaiting_approval`, …). */
  status: string;
  stopReason?: string;
  /** Why, in one short paragraph: the recorded error, or what happened to the approval. */
  reason: string;
  /** For degraded and approval notices: what was refused (tool and why), at most a few. */
  refused?: { tool: string; reason: string }[];
  /** The run in the API: `<api>/v1/runs/<id>` (authenticated; not a credential). */
  runUrl: string;
};

/** Delivers owner notices. `channel` names it in logs (`sns`, `inbox`, `console`, `local`). */
export interface OwnerNotifier {
  readonly channel: string;
  notifyOwner(notice: OwnerNotice): Promise<void>;
}

const HEADLINES: Record<OwnerNoticeKind, string> = {
  run_failed: 'Run failed',
  run_denied: 'Run ended denied',
  approval_expired: 'Approval expired',
  approval_undeliverable: 'Approval could not be sent',
};

/** The subject line, made valid for SNS (`snsSubject`: printable ASCII, under 100 characters). */
export function ownerNoticeSubject(notice: Pick<OwnerNotice, 'kind' | 'workflowName'>): string {
  return snsSubject(`${HEADLINES[notice.kind]}: ${notice.workflowName}`);
}

/** The plain-text body: what happened, why, what was refused, and where to read the run. */
export function ownerNoticeBody(notice: OwnerNotice): string {
  const refused = notice.refused ?? [];
  return [
    `${HEADLINES[notice.kind]}.`,
    '',
    `Workflow:   ${visible(notice.workflowName)}`,
    `Run:        ${visible(notice.runId)}`,
    `Status:     ${visible(notice.status)}${notice.stopReason ? ` (${visible(notice.stopReason)})` : ''}`,
    `Reason:     ${visible(notice.reason)}`,
    ...(refused.length === 0
      ? []
      : ['', 'Refused:', ...refused.map((r) => `  - ${visible(r.tool)}: ${visible(r.reason)}`)]),
    '',
    'The run, its transcript and its audit chain (with your API credentials):',
    notice.runUrl,
  ].join('\n');
}
