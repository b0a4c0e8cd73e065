/** Errors of the approval HTTP family. None of them carries a task token or a link token. */

/**
 * Step Functions refused to answer a task token and retrying did not help. Carries the AWS error name and
 * HTTP status only: AWS messages may quote the request's values, and the token is a credential.
 */
export class TaskTokenSendError extends Error {
  readonly operation: string;
  readonly errorName: string;
  readonly attempts: number;
  readonly httpStatus: number | undefined;

  constructor(operation: string, errorName: string, attempts: number, httpStatus?: number) {
    super(
      `${operation} failed with ${errorName}${httpStatus === undefined ? '' : ` (HTTP ${httpStatus})`} after ${attempts} attempt(s)`,
    );
    this.name = 'TaskTokenSendError';
    this.operation = operation;
    this.errorName = errorName;
    this.attempts = attempts;
    this.httpStatus = httpStatus;
  }
}

/** No approver of a run could be notified: nobody holds a link, so waiting would only end in expiry. */
export class ApprovalNotifyError extends Error {
  readonly runId: string;
  /** `approvalId/approver: ErrorName` per failed notice; never links, and no notifier message (it may quote one). */
  readonly failed: readonly string[];

  constructor(runId: string, failed: readonly string[]) {
    super(`no approver of run ${runId} could be notified (${failed.join(', ')})`);
    this.name = 'ApprovalNotifyError';
    this.runId = runId;
    this.failed = failed;
  }
}
