/**
 * The port a `human_task` step's wait calls: h/human-tasks (shared/human-tasks/) implements it with task
 * records, signed links per assignee and the form page. Its submit route answers the wait with
 * `SendTaskSuccess(token, { output })`; `CompleteStep` then records the output as the step's.
 */
export type HumanTaskRequest = {
  owner: string;
  runId: string;
  stepId: string;
  attempt: number;
  workflowId: string;
  workflowName: string;
  /** The wait's task token (a credential: stored on the task record, never in a link or a log). */
  taskToken: string;
  /** Which attempt of the wait this token is of (wait-fence.ts): a later attempt's token is never replaced. */
  waitFence?: string;
  title: string;
  assignees: string[];
  /** The form, a JSON Schema object. */
  form: Record<string, unknown>;
  /** The run data the node declares (`context` paths), evaluated now: path → value. */
  context: Record<string, unknown>;
  /** When the wait times out (its TimeoutSeconds from now): links expire then, failing closed. */
  expiresAt: string;
};

export interface HumanTaskPort {
  /** Creates the task for this step attempt (or attaches the new token to it) and notifies the assignees. */
  request(task: HumanTaskRequest): Promise<void>;
  /** Closes the open task of a step whose run was cancelled: its links stop working. */
  close(args: { owner: string; runId: string; stepId: string }): Promise<void>;
}

/**
 * The error a re-requested wait fails with when its task had already expired: a timeout like `States.Timeout`
 * (shared/human-tasks/errors.ts answers with it).
 */
export const HUMAN_TASK_EXPIRED_ERROR = 'HumanTask.Expired';

/** Whether a human task's wait ended by running out of time (its own timer, or a re-request found it expired). */
export const isHumanTaskTimeout = (error: { Error?: string | undefined } | undefined): boolean =>
  error?.Error === 'States.Timeout' || error?.Error === HUMAN_TASK_EXPIRED_ERROR;

/** What the task record says once its wait timed out: a submission that won the race is the step's output. */
export type HumanTaskExpiry =
  | { status: 'expired' | 'closed' | 'unknown' }
  | { status: 'submitted'; output: Record<string, unknown> };

/**
 * The port `CompleteStep` calls when a human task's wait timed out: records the step attempt's task `expired`
 * (conditional on `open`, audited), so its links stop working and listings show it over. Idempotent.
 */
export interface HumanTaskExpiryPort {
  expire(step: { runId: string; stepId: string; attempt: number }): Promise<HumanTaskExpiry>;
  /** The wait failed otherwise: closes the attempt's task if still open (its links stop working). Idempotent. */
  closeFailed(step: { runId: string; stepId: string; attempt: number }, reason: string): Promise<void>;
}

export class HumanTasksUnavailableError extends Error {
  override readonly name = 'HumanTasksUnavailableError';
}

/** Where no human-task service is configured: the step fails at once (fail closed), with this reason. */
export const unconfiguredHumanTasks: HumanTaskPort = {
  async request() {
    throw new HumanTasksUnavailableError('no human-task service is configured in this deployment');
  },
  async close() {},
};
