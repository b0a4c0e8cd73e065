/** The pages a request can end with: result pages from `approvalResult`, plus the few it has no kind for. */
import {
  APPROVAL_PAGE_HEADERS,
  type ApprovalLinkFailure,
  type ApprovalOutcome,
  approvalResult,
  type FormNonceFailure,
  type ResultPageView,
  renderResultPage,
} from '../approvals/index.ts';
import type { Approval } from '../schemas/approval.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';

/** A status code and the result page to show with it. */
export type PageResult = { httpStatus: number; view: ResultPageView };

export const outcome = (value: ApprovalOutcome): PageResult => approvalResult(value);

/** An HTML response with the approval page headers (CSP without script, no-store, no-referrer, …). */
export function htmlResponse(httpStatus: number, html: string, extra: Record<string, string> = {}): Response {
  return new Response(html, { status: httpStatus, headers: { ...APPROVAL_PAGE_HEADERS, ...extra } });
}

export function resultResponse(result: PageResult, extra: Record<string, string> = {}): Response {
  return htmlResponse(result.httpStatus, renderResultPage(result.view), extra);
}

/** A refused link: expired → 410, anything else (forged, unknown key, another approval's) → 403. */
export const linkRefused = (reason: ApprovalLinkFailure): PageResult =>
  outcome({ kind: reason === 'expired' ? 'expired_link' : 'invalid_link' });

/** A refused form nonce: too old → "form expired"; malformed → "invalid request"; forged or foreign → 403. */
export const nonceRefused = (reason: FormNonceFailure): PageResult => {
  if (reason === 'expired' || reason === 'not_yet_valid') return outcome({ kind: 'form_expired' });
  if (reason === 'malformed') return outcome({ kind: 'invalid_request' });
  return outcome({ kind: 'invalid_link' });
};

const NOT_RECORDED = 'No decision was recorded.';

/** The run ended (done, failed, denied, cancelled) while the approval was open: nothing can be decided. */
export const runEnded = (status: string): PageResult => ({
  httpStatus: 410,
  view: {
    title: 'Run ended',
    message: `The run this approval belongs to has already ended (${status}); the action will not run. ${NOT_RECORDED}`,
    status: 'info',
  },
});

/** No approver could be sent this request, so the call was denied at once (docs/approvals.md). */
export const undeliverable: PageResult = {
  httpStatus: 410,
  view: {
    title: 'Request withdrawn',
    message: `No approver could be reached when this request was made, so the call was denied and will not run. ${NOT_RECORDED}`,
    status: 'info',
  },
};

/**
 * The approval holds no task token: its links go out before RequestApproval stores the wait's token with the
 * notices (request-record.ts), and a store fault there (after the SDK's retries) ends RequestApproval without
 * it. Nothing could resume the run on a decision, so none is taken: such a link stays dead unless a retried
 * RequestApproval of the same wait stores a token, which makes the wait live again. The few moments between a
 * link's sending and that store cannot be told from a request that failed, so the page says both.
 */
export const requestNotOpen: PageResult = {
  httpStatus: 409,
  view: {
    title: 'Request not open',
    message: `This request is not open for a decision: it ended before it was fully made, or (if your link arrived just now) it is still being made, and then opening the link again in a minute will work. ${NOT_RECORDED}`,
    status: 'info',
  },
};

/** Someone else's decision won, but the record could not be re-read to say whose. */
export const decidedElsewhere: PageResult = {
  httpStatus: 409,
  view: {
    title: 'Already decided',
    message: `This approval was already decided. Your decision was not recorded.`,
    status: 'info',
  },
};

/**
 * An approval posted from a page rendered before the workflow changed (a new version, a disable, a delete, a
 * draft): what that page said about the action may no longer hold, so nothing is recorded (fail closed).
 */
export const workflowChanged: PageResult = {
  httpStatus: 409,
  view: {
    title: 'Workflow changed',
    message: `The workflow was changed after this page was opened, so what it showed may no longer hold. Open your approval link again to see the request as it is now. ${NOT_RECORDED}`,
    status: 'info',
  },
};

/** A decision posted from another site (its `Origin` or `Sec-Fetch-Site` says so): nothing is recorded. */
export const crossSiteRefused: PageResult = {
  httpStatus: 403,
  view: {
    title: 'Request refused',
    message: `This decision did not come from the approval page itself. Open your approval link and use its buttons. ${NOT_RECORDED}`,
    status: 'error',
  },
};

export const notFound: PageResult = {
  httpStatus: 404,
  view: { title: 'Not found', message: 'There is no page here.', status: 'error' },
};

export const methodNotAllowed: PageResult = {
  httpStatus: 405,
  view: {
    title: 'Method not allowed',
    message: `Open the approval link to decide. ${NOT_RECORDED}`,
    status: 'error',
  },
};

export const serverError: PageResult = {
  httpStatus: 500,
  view: {
    title: 'Something went wrong',
    message:
      'The request could not be completed. Open the approval link again to see whether a decision was recorded.',
    status: 'error',
  },
};

/**
 * Why an approval can no longer be decided, or undefined while it can: decided (409), expired (410, also
 * when its time is up but the Expire step has not run yet: fail closed), its run ended (410), or no wait's task
 * token is stored on it (409, `requestNotOpen`: a decision could resume nothing).
 */
export function closedResult(
  approval: Approval,
  run: Run | undefined,
  nowMs: number,
): PageResult | undefined {
  if (approval.status === 'approved' || approval.status === 'denied') {
    return outcome({
      kind: 'already_decided',
      decision: approval.status,
      by: approval.decidedBy ?? 'another approver',
      atIso: approval.decidedAt ?? '',
    });
  }
  // No approver could be sent the request: the call was denied at once; a link cannot revive it.
  if (approval.status === 'undeliverable') return undeliverable;
  if (approval.status === 'expired' || Date.parse(approval.expiresAt) <= nowMs) {
    return outcome({ kind: 'approval_expired' });
  }
  if (run === undefined) return runEnded('no longer exists');
  if (isTerminalRunStatus(run.status)) return runEnded(run.status);
  if (approval.taskToken === undefined) return requestNotOpen;
  return undefined;
}
