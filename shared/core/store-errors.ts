/** Errors of the store port: conflicts are typed so callers can tell "someone else won" from a fault. */

/** A fenced write lost: the run changed since it was read (another transition won). */
export class RunConflictError extends Error {
  readonly runId: string;
  readonly expectedRev: number;
  constructor(runId: string, expectedRev: number, options?: { cause?: unknown }) {
    super(`run ${runId} changed concurrently (expected rev ${expectedRev}); reload and retry`, options);
    this.name = 'RunConflictError';
    this.runId = runId;
    this.expectedRev = expectedRev;
  }
}

/** A status transition that RUN_TRANSITIONS does not allow. */
export class InvalidTransitionError extends Error {
  constructor(runId: string, from: string, to: string) {
    super(`run ${runId} cannot go from ${from} to ${to}`);
    this.name = 'InvalidTransitionError';
  }
}

/** A ledger row was already settled (or already exists); a second settle is refused. */
export class LedgerConflictError extends Error {
  readonly toolUseId: string;
  constructor(runId: string, toolUseId: string, detail: string, options?: { cause?: unknown }) {
    super(`ledger row ${runId}/${toolUseId}: ${detail}`, options);
    this.name = 'LedgerConflictError';
    this.toolUseId = toolUseId;
  }
}

/** An approval is no longer pending; a second decision is refused. */
export class ApprovalAlreadyDecidedError extends Error {
  readonly approvalId: string;
  readonly status: string | undefined;
  constructor(approvalId: string, status?: string, options?: { cause?: unknown }) {
    super(`approval ${approvalId} was already decided${status ? ` (${status})` : ''}`, options);
    this.name = 'ApprovalAlreadyDecidedError';
    this.approvalId = approvalId;
    this.status = status;
  }
}

/** A human task is no longer open (submitted, expired or closed), or does not exist: nothing was written. */
export class HumanTaskClosedError extends Error {
  readonly taskId: string;
  readonly status: string | undefined;
  constructor(taskId: string, status?: string, options?: { cause?: unknown }) {
    super(`human task ${taskId} is not open${status ? ` (${status})` : ''}`, options);
    this.name = 'HumanTaskClosedError';
    this.taskId = taskId;
    this.status = status;
  }
}

/**
 * The live policy moved under a graph step's write: its workflow was disabled or deleted, or a later version
 * was published (the write's `liveHead` condition failed). Nothing was written; re-read the head and decide.
 */
export class WorkflowHeadMovedError extends Error {
  constructor(workflowId: string, options?: { cause?: unknown }) {
    super(`workflow ${workflowId} was disabled, deleted or republished since it was checked`, options);
    this.name = 'WorkflowHeadMovedError';
  }
}

/**
 * The workflow head is no longer at the revision a change was conditioned on (`RunChange.headAt`): something
 * changed the workflow (a new version, a disable, a draft, a delete) since the caller read it. Nothing was written.
 */
export class WorkflowHeadChangedError extends Error {
  readonly workflowId: string;
  readonly rev: number;
  constructor(workflowId: string, rev: number, options?: { cause?: unknown }) {
    super(`workflow ${workflowId} changed since it was read at revision ${rev}`, options);
    this.name = 'WorkflowHeadChangedError';
    this.workflowId = workflowId;
    this.rev = rev;
  }
}

/** The per-day budget of a workflow would be exceeded by a reservation. */
export class DayBudgetExceededError extends Error {
  constructor(workflowId: string, day: string, options?: { cause?: unknown }) {
    super(`the per-day budget of workflow ${workflowId} for ${day} is exhausted`, options);
    this.name = 'DayBudgetExceededError';
  }
}

/** A graph run's ceiling (`budget.maxUsdPerRun`, all its child runs together) would be exceeded by a reservation. */
export class GraphBudgetExceededError extends Error {
  constructor(graphRunId: string, options?: { cause?: unknown }) {
    super(`the budget of graph run ${graphRunId} (all its child runs together) is exhausted`, options);
    this.name = 'GraphBudgetExceededError';
  }
}

/** A reservation refused by a spend counter's ceiling: the workflow's day, or a graph child's graph run. */
export const isSpendCeilingRefusal = (
  error: unknown,
): error is DayBudgetExceededError | GraphBudgetExceededError =>
  error instanceof DayBudgetExceededError || error instanceof GraphBudgetExceededError;

/** Something that must be unique already exists (a workflow name, an item). */
export class AlreadyExistsError extends Error {
  constructor(what: string, options?: { cause?: unknown }) {
    super(`${what} already exists`, options);
    this.name = 'AlreadyExistsError';
  }
}

/** A stored item does not parse: names the item key so an operator can find it. */
export class ItemCorruptError extends Error {
  readonly key: string;
  constructor(key: string, detail: string, options?: { cause?: unknown }) {
    super(`stored item ${key} is unreadable: ${detail}`, options);
    this.name = 'ItemCorruptError';
    this.key = key;
  }
}

/** DynamoDB throttled the request; retryable (Step Functions retries on this name). */
export class StoreThrottledError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('DynamoDB throttled the request', options);
    this.name = 'StoreThrottledError';
  }
}

/** A transcript message cannot be stored: one of its blocks does not fit even in an empty item. */
export class MessageTooLargeError extends Error {
  constructor(runId: string, seq: number, detail: string) {
    super(`transcript message ${seq} of run ${runId} cannot be stored: ${detail}`);
    this.name = 'MessageTooLargeError';
  }
}

/**
 * A write would exceed a DynamoDB transaction limit (100 items, 4 MB) or the 400 KB item limit. Raised
 * before sending, and never retryable: the same write would fail the same way every time.
 */
export class TransactionTooLargeError extends Error {
  constructor(detail: string) {
    super(`the write exceeds a DynamoDB limit: ${detail}`);
    this.name = 'TransactionTooLargeError';
  }
}

/** A graph step was not in the status and attempt it was read in: another writer moved it first. */
export class StepConflictError extends Error {
  readonly stepId: string;
  constructor(runId: string, stepId: string, options?: { cause?: unknown }) {
    super(`step ${runId}/${stepId} changed concurrently; reload and retry`, options);
    this.name = 'StepConflictError';
    this.stepId = stepId;
  }
}
