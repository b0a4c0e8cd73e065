/** The result pages of the human-task routes: every way a request can end, with its status. */
import { formatInstant } from '../approvals/html.ts';
import type { FormNonceFailure, SubjectLinkFailure } from '../approvals/index.ts';
import type { PageResult } from '../approvals-http/results.ts';
import type { HumanTask } from '../schemas/human-task.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';

const NOTHING = 'Nothing was submitted.';
const result = (
  httpStatus: number,
  status: PageResult['view']['status'],
  title: string,
  message: string,
) => ({
  httpStatus,
  view: { title, message, status },
});

/** Stable headings: the tests and the browser test look for these. */
export const TASK_TITLES = {
  submitted: 'Submitted — the run continues',
  alreadySubmitted: 'Already submitted',
  expired: 'Task expired',
  closed: 'Task closed',
  runEnded: 'Run ended',
  invalidLink: 'Invalid link',
  expiredLink: 'Link expired',
  formExpired: 'Form expired',
  invalidRequest: 'Invalid request',
  unknown: 'Unknown task',
  crossSite: 'Request refused',
} as const;

export const taskResults = {
  submitted: result(
    200,
    'success',
    TASK_TITLES.submitted,
    'Your answer is recorded. The run continues with it.',
  ),
  invalidLink: result(
    403,
    'error',
    TASK_TITLES.invalidLink,
    `This task link is not valid: it may be altered or incomplete. ${NOTHING}`,
  ),
  expiredLink: result(410, 'error', TASK_TITLES.expiredLink, `This task link has expired. ${NOTHING}`),
  formExpired: result(
    403,
    'error',
    TASK_TITLES.formExpired,
    `This page was open too long. Open the task link again to submit. ${NOTHING}`,
  ),
  invalidRequest: result(
    400,
    'error',
    TASK_TITLES.invalidRequest,
    `The form was incomplete. Open the task link again to submit. ${NOTHING}`,
  ),
  unknown: result(404, 'error', TASK_TITLES.unknown, `There is no such task. ${NOTHING}`),
  expired: result(
    410,
    'error',
    TASK_TITLES.expired,
    `This task expired before anyone submitted it; the run took its timeout path. ${NOTHING}`,
  ),
  crossSite: result(
    403,
    'error',
    TASK_TITLES.crossSite,
    `This submission did not come from the task page itself. Open your task link and use its form. ${NOTHING}`,
  ),
  methodNotAllowed: result(
    405,
    'error',
    'Method not allowed',
    `Open the task link to fill in the form. ${NOTHING}`,
  ),
  serverError: result(
    500,
    'error',
    'Something went wrong',
    'The request could not be completed. Open the task link again to see whether your answer was recorded.',
  ),
  alreadyElsewhere: result(
    409,
    'info',
    TASK_TITLES.alreadySubmitted,
    `This task was already submitted. Your answer was not recorded.`,
  ),
};

/** Why a task was closed, in the assignee's words, by `closedReason` (shared/human-tasks/close.ts). */
const CLOSED_WHY: Record<string, string> = {
  run_cancelled: 'its run was cancelled',
  undeliverable: 'no assignee could be sent the link',
};
/**
 * `wait_failed: <error>` (closeFailedWaitTask: the step's wait failed, or its graph run failed): the error is the
 * run's internals, for its owner (audit, listings), so the assignee reads only that nothing waits any more.
 */
const WAIT_FAILED = 'wait_failed:';
const closedWhy = (reason = ''): string =>
  reason.startsWith(WAIT_FAILED)
    ? 'the run stopped waiting for an answer'
    : (CLOSED_WHY[reason] ?? 'it was withdrawn');

/** A refused link: expired → 410, anything else (forged, unknown key, another task's, another form's) → 403. */
export const taskLinkRefused = (reason: SubjectLinkFailure): PageResult =>
  reason === 'expired' ? taskResults.expiredLink : taskResults.invalidLink;

/** A refused nonce: too old → form expired; malformed → invalid request; forged or foreign → 403. */
export const taskNonceRefused = (reason: FormNonceFailure): PageResult => {
  if (reason === 'expired' || reason === 'not_yet_valid') return taskResults.formExpired;
  if (reason === 'malformed') return taskResults.invalidRequest;
  return taskResults.invalidLink;
};

/**
 * Why a task can no longer be submitted, or undefined while it can: submitted (409, by whom and when), expired
 * (410, also when its time is up but the timeout step has not run: fail closed), closed or its run ended (410).
 */
export function closedTaskResult(
  task: HumanTask,
  run: Run | undefined,
  nowMs: number,
): PageResult | undefined {
  if (task.status === 'submitted') {
    const by = task.submittedBy ?? 'another assignee';
    const at = task.submittedAt ? ` at ${formatInstant(task.submittedAt)}` : '';
    return result(
      409,
      'info',
      TASK_TITLES.alreadySubmitted,
      `This task was already submitted by ${by}${at}. Your answer was not recorded.`,
    );
  }
  if (task.status === 'expired' || Date.parse(task.expiresAt) <= nowMs) return taskResults.expired;
  if (task.status === 'closed') {
    const why = closedWhy(task.closedReason);
    return result(410, 'info', TASK_TITLES.closed, `This task was closed because ${why}. ${NOTHING}`);
  }
  if (run === undefined || isTerminalRunStatus(run.status)) {
    return result(
      410,
      'info',
      TASK_TITLES.runEnded,
      `The run this task belongs to has already ended (${run?.status ?? 'gone'}). ${NOTHING}`,
    );
  }
  return undefined;
}
