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

/**
 * The head moved on (a newer revision) while this sync ran: what it wrote may be older than what the newer
 * head's sync wrote. The caller reads the head again and syncs that (`syncTriggers`).
 */
export class TriggerSyncSupersededError extends Error {
  readonly workflowId: string;
  constructor(workflowId: string, options?: { cause?: unknown }) {
    super(`triggers of workflow ${workflowId}: the head changed while they were synchronized`, options);
    this.name = 'TriggerSyncSupersededError';
    this.workflowId = workflowId;
  }
}
