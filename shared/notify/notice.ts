/** Approval notices: what an approver is told, in plain text, and the port that delivers it. */

import { cutText } from '../core/byte-caps.ts';

/** One notice to one approver. `url` is the signed link: a credential, never logged or audited. */
export type ApprovalNotice = {
  /**
   * The owner of the run, which asks: the notice and the page name it, so an approver serving several owners
   * can tell whose call they decide. The local inbox shows each owner only their own notices.
   */
  owner: string;
  /** The approver, or for a human task the assignee. */
  approver: string;
  /** What the link opens: an approval (absent, the default) or a human task's form. */
  subject?: 'human_task';
  workflowName: string;
  runId: string;
  /** The action; for a human task, its title. */
  tool: string;
  /** A short, single-line preview of the arguments (for a human task, of its context); the page shows them in full. */
  argsPreview: string;
  /** ISO instant at which the link (and the approval) expires. */
  expiresAt: string;
  url: string;
};

/**
 * Delivers approval notices. `channel` names it in the audit chain (`sns`, `console`, `inbox`, `local`).
 * `reaches` says whether a notice to `approver` can arrive at all (an SNS topic reaches only the subscribed
 * addresses): `requestApproval` hands a notice only to a channel that reaches its approver.
 */
export interface Notifier {
  readonly channel: string;
  /** Whether a notice from `owner`'s run can reach `approver` (declared for that owner, on AWS). */
  reaches(approver: string, owner: string): boolean;
  notify(notice: ApprovalNotice): Promise<void>;
}

/**
 * Characters that render as nothing, reorder text or drive a terminal (C0/C1 controls incl. ESC, bidi
 * overrides, zero-width, line separators): model-written values are shown with these as `\uXXXX`.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u3164\uffa0]/gu;

/** `value` with every invisible or control character written as a visible `\uXXXX` escape. */
export function visible(value: string): string {
  return value.replace(INVISIBLE, (c) =>
    Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(
      '',
    ),
  );
}

/** Compact JSON of the arguments on one line, invisible characters escaped, cut at `maxChars` with `…`. */
export function argsPreview(args: unknown, maxChars = 300): string {
  const json = visible(JSON.stringify(args ?? null) ?? 'null');
  return json.length <= maxChars ? json : `${cutText(json, maxChars - 1)}…`;
}

/** The subject line: printable ASCII only, no line breaks, under 100 characters (SNS's email subject rules). */
export function noticeSubject(
  notice: Pick<ApprovalNotice, 'tool' | 'workflowName' | 'owner'> & { subject?: 'human_task' },
): string {
  const ascii = (value: string) => value.replace(/[^\x20-\x7e]/g, '?').trim();
  const what = notice.subject === 'human_task' ? 'Task for you' : 'Approval needed';
  // The owner first: a long workflow name is what gets cut, never who asks.
  const subject = `[${ascii(notice.owner)}] ${what}: ${ascii(notice.tool)} (${ascii(notice.workflowName)})`;
  return subject.length <= 99 ? subject : `${subject.slice(0, 96)}...`;
}

/** The plain-text body: what would run, until when, and the link for this approver only. */
export function noticeBody(notice: ApprovalNotice): string {
  if (notice.subject === 'human_task') return humanTaskBody(notice);
  return [
    `A workflow run of owner ${visible(notice.owner)} needs your approval before it performs an action.`,
    '',
    `Owner:      ${visible(notice.owner)} (who asks)`,
    `Workflow:   ${visible(notice.workflowName)}`,
    `Run:        ${visible(notice.runId)}`,
    `Action:     ${visible(notice.tool)}`,
    `Arguments:  ${notice.argsPreview}`,
    `Expires:    ${visible(notice.expiresAt)}`,
    `Approver:   ${visible(notice.approver)}`,
    '',
    'Review the exact arguments and approve or deny here:',
    notice.url,
    '',
    'Opening the link changes nothing; only the buttons on the page decide. The link is signed for you',
    'alone: do not forward it. If you did not expect this, ignore it and the request expires.',
  ].join('\n');
}

/** The plain-text body of a human task notice: what is asked, until when, and the link for this assignee only. */
function humanTaskBody(notice: ApprovalNotice): string {
  return [
    `A workflow run of owner ${visible(notice.owner)} is waiting for you to fill in a form.`,
    '',
    `Owner:      ${visible(notice.owner)} (who asks)`,
    `Task:       ${visible(notice.tool)}`,
    `Workflow:   ${visible(notice.workflowName)}`,
    `Run:        ${visible(notice.runId)}`,
    `Context:    ${notice.argsPreview}`,
    `Expires:    ${visible(notice.expiresAt)}`,
    `Assignee:   ${visible(notice.approver)}`,
    '',
    'Open the form here:',
    notice.url,
    '',
    'Opening the link changes nothing; only submitting the form does. The link is signed for you alone:',
    'do not forward it. If you did not expect this, ignore it and the task expires.',
  ].join('\n');
}
