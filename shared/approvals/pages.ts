import { formatInstant, page, text } from './html.ts';

/** How a result reads: success (green), info (neutral) or error (red). */
export type ResultStatus = 'success' | 'info' | 'error';

/** A result page: a stable heading, one message, a tone. */
export type ResultPageView = { title: string; message: string; status: ResultStatus };

/** The outcome page after a decision attempt, or when a link cannot be used. */
export function renderResultPage(view: ResultPageView): string {
  const body = `
<div class="card">
<h1>${text(view.title)}</h1>
<p>${text(view.message)}</p>
<p class="muted">You can close this page.</p>
</div>`;
  return page(view.title, body, `status-${view.status}`);
}

/** Every outcome an approval request can end in, as the handler knows it. */
export type ApprovalOutcome =
  | { kind: 'approved' }
  | { kind: 'approved_withdrawn' }
  /** Approved, and whether the action is still granted could not be told (a delegated job, a lookup fault). */
  | { kind: 'approved_unchecked' }
  | { kind: 'denied' }
  | { kind: 'invalid_link' }
  | { kind: 'expired_link' }
  | { kind: 'form_expired' }
  | { kind: 'invalid_request' }
  | { kind: 'already_decided'; decision: 'approved' | 'denied'; by: string; atIso: string }
  | { kind: 'approval_expired' }
  | { kind: 'unknown_approval' };

/** Stable headings: tests and the browser test look for these. */
export const RESULT_TITLES = {
  approved: 'Approved — the run continues',
  approved_withdrawn: 'Approved — but the action will not run',
  approved_unchecked: 'Approved',
  denied: 'Denied',
  invalid_link: 'Invalid link',
  expired_link: 'Link expired',
  form_expired: 'Form expired',
  invalid_request: 'Invalid request',
  already_decided: 'Already decided',
  approval_expired: 'Approval expired',
  unknown_approval: 'Unknown approval',
} as const satisfies Record<ApprovalOutcome['kind'], string>;

const NOT_RECORDED = 'No decision was recorded.';

/** The HTTP status and page of an outcome. */
export function approvalResult(outcome: ApprovalOutcome): { httpStatus: number; view: ResultPageView } {
  const title = RESULT_TITLES[outcome.kind];
  const result = (httpStatus: number, status: ResultStatus, message: string) => ({
    httpStatus,
    view: { title, message, status },
  });
  switch (outcome.kind) {
    case 'approved':
      return result(200, 'success', 'You approved this action. The run continues and performs it.');
    case 'approved_withdrawn':
      return result(
        200,
        'info',
        'Your approval is recorded, but this action has been withdrawn from the workflow since it was requested (a newer version no longer allows it, or the workflow was disabled). It will not run: the run goes on without it, or ends if the workflow was disabled.',
      );
    case 'approved_unchecked':
      return result(
        200,
        'success',
        'Your approval is recorded. The run checks that this action is still allowed, then performs it; if it was withdrawn since it was requested, it will not run.',
      );
    case 'denied':
      return result(
        200,
        'info',
        'You denied this action. It will not run; the workflow is told it was denied.',
      );
    case 'invalid_link':
      return result(
        403,
        'error',
        `This approval link is not valid: it may be altered or incomplete. ${NOT_RECORDED}`,
      );
    case 'expired_link':
      return result(410, 'error', `This approval link has expired. ${NOT_RECORDED}`);
    case 'form_expired':
      return result(
        403,
        'error',
        `This page was open too long. Open the approval link again to decide. ${NOT_RECORDED}`,
      );
    case 'invalid_request':
      return result(
        400,
        'error',
        `The form was incomplete. Open the approval link again to decide. ${NOT_RECORDED}`,
      );
    case 'already_decided':
      return result(
        409,
        'info',
        `This approval was already decided: ${outcome.decision} by ${outcome.by} at ${formatInstant(outcome.atIso)}. Your decision was not recorded.`,
      );
    case 'approval_expired':
      return result(
        410,
        'error',
        `This approval expired before anyone decided; the action did not run. ${NOT_RECORDED}`,
      );
    case 'unknown_approval':
      return result(404, 'error', `There is no such approval. ${NOT_RECORDED}`);
  }
}
