/** Errors of the trigger sync family. */

/** A schedule, rule or index entry could not be brought in line with the workflow; the workflow itself is saved. */
export class TriggerSyncError extends Error {
  readonly workflowId: string;
  constructor(workflowId: string, detail: string, options?: { cause?: unknown }) {
    super(`triggers of workflow ${workflowId} could not be synchronized: ${detail}`, options);
    this.name = 'TriggerSyncError';
    this.workflowId = workflowId;
  }
}

/** The AWS trigger sync is missing configuration (environment variables) or has an unusable value. */
export class TriggerSyncConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TriggerSyncConfigError';
  }
}
