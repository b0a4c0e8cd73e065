/**
 * API errors and the one `onError` handler: every failure leaves as `{ error: { code, message, fields? } }`.
 * Domain errors of the store and the run service are mapped here; anything unknown is a 500 whose message
 * is not shown to the caller.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { GraphOperationError } from '../graph-run/operations.ts';
import { GrantChangeError, JobNotFoundError, JobRejectedError } from '../jobs/errors.ts';
import {
  RunInputTooLargeError,
  RunNotStartedError,
  RunStartPendingError,
  WorkflowNotRunnableError,
} from '../runs/index.ts';
import {
  AlreadyExistsError,
  IdempotencyConflictError,
  InvalidPageTokenError,
  isStoreFault,
  isThrottle,
  isTransientStoreFault,
  RunConflictError,
  StoreThrottledError,
  WorkflowConflictError,
} from '../store/index.ts';
import { TriggerSyncError } from '../triggers-sync/errors.ts';
import type { FieldError } from '../workflow-file/errors.ts';

export type ErrorBody = { error: { code: string; message: string; fields?: FieldError[] } };

/** An error with the status, code and message the caller gets. */
export class ApiError extends HTTPException {
  readonly code: string;
  readonly fields: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  constructor(
    status: ContentfulStatusCode,
    code: string,
    message: string,
    options: { fields?: FieldError[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(status, { message, cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.fields = options.fields;
    this.headers = options.headers ?? {};
  }
}

/** The authenticator cannot be built from its configuration (e.g. an invalid API keys file). */
export class AuthConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthConfigError';
  }
}

/** 404 with one body for "missing" and "someone else's", so ids cannot be probed. */
export const notFound = (what: 'workflow' | 'version' | 'run' | 'route') =>
  new ApiError(404, 'not_found', `${what} not found`);

/** 400 naming the offending fields. */
export const invalid = (fields: FieldError[], message = 'the request is invalid') =>
  new ApiError(400, 'validation_failed', message, { fields });

export function errorBody(code: string, message: string, fields?: FieldError[]): ErrorBody {
  return { error: { code, message, ...(fields && fields.length > 0 ? { fields } : {}) } };
}

const REJECTION_STATUS = {
  not_granted: 403,
  scope_missing: 403,
  outside_grant: 403,
  unpriced_model: 400,
  queue_full: 429,
  idempotency_conflict: 409,
  validation_failed: 400,
  job_busy: 409,
} as const;
/** Seconds a client waits before repeating a refusal that passes by itself. */
const REJECTION_RETRY_AFTER: Partial<Record<keyof typeof REJECTION_STATUS, string>> = {
  queue_full: '5',
  job_busy: '1',
};

/** Delegated jobs' refusals (shared/jobs/errors.ts), each naming its field. */
function mapJobError(error: unknown): ApiError | undefined {
  if (error instanceof JobNotFoundError) return new ApiError(404, 'not_found', 'job not found');
  if (error instanceof JobRejectedError) {
    const retryAfter = REJECTION_RETRY_AFTER[error.kind];
    return new ApiError(REJECTION_STATUS[error.kind], error.kind, error.message, {
      fields: [{ path: error.field, message: error.message }],
      ...(retryAfter ? { headers: { 'Retry-After': retryAfter } } : {}),
    });
  }
  if (error instanceof GrantChangeError) {
    if (error.kind === 'not_found') return new ApiError(404, 'not_found', 'grant not found');
    const fields = error.field ? [{ path: error.field, message: error.message }] : undefined;
    return error.kind === 'conflict'
      ? new ApiError(409, 'conflict', error.message, fields ? { fields } : {})
      : invalid(fields ?? [], error.message);
  }
  return undefined;
}

/** A domain error as the API answers it (status, code, message, fields), or undefined when it is not one. */
export function mapDomainError(error: unknown): ApiError | undefined {
  const job = mapJobError(error);
  if (job) return job;
  if (error instanceof AlreadyExistsError) return new ApiError(409, 'already_exists', error.message);
  if (error instanceof IdempotencyConflictError) {
    return new ApiError(
      409,
      'idempotency_conflict',
      'Idempotency-Key was already used for a different request',
      {
        fields: [{ path: 'Idempotency-Key', message: 'was already used with a different body' }],
      },
    );
  }
  if (error instanceof RunInputTooLargeError)
    return invalid([{ path: 'input', message: error.message }], 'the input is too large for this workflow');
  if (error instanceof WorkflowNotRunnableError) {
    if (error.reason === 'disabled')
      return new ApiError(409, 'workflow_disabled', 'the workflow is disabled; enable it to start runs');
    if (error.reason === 'not_runnable_kind' || error.reason === 'mode_off')
      return new ApiError(409, 'workflow_not_runnable', error.message);
    return notFound('workflow');
  }
  if (error instanceof GraphOperationError) return new ApiError(409, 'invalid_state', error.message);
  // The run was created, its execution could not be started, and it was ended `failed` (shared/runs/start-run.ts).
  if (error instanceof RunNotStartedError)
    return new ApiError(
      502,
      'run_not_started',
      `run ${error.runId} was created but its execution could not be started; the run was ended failed. Start again to start a new run.`,
      { cause: error },
    );
  // The run was created and is pending: its execution could not be started, or nothing could say whether it
  // was (shared/runs/start-run.ts). Not a 500: the caller learns the run's id and what to do.
  if (error instanceof RunStartPendingError)
    return new ApiError(
      503,
      'run_start_pending',
      error.keyed
        ? `run ${error.runId} was created but its execution could not be started yet; send the same request with the same Idempotency-Key to start it (within 10 minutes: after that the run is ended failed, ExecutionNotStarted)`
        : `run ${error.runId} was created but whether its execution started is unknown: it runs if it did, and is ended failed (ExecutionNotStarted) within about 11 minutes if it did not; see GET /v1/runs/${error.runId} before starting again`,
      { headers: { 'Retry-After': error.keyed ? '5' : '60' }, cause: error },
    );
  if (error instanceof WorkflowConflictError || error instanceof RunConflictError) {
    return new ApiError(409, 'concurrent_update', 'it changed concurrently; reload and retry');
  }
  if (error instanceof InvalidPageTokenError) {
    return invalid([{ path: 'nextToken', message: error.message }]);
  }
  if (error instanceof TriggerSyncError) {
    return new ApiError(
      502,
      'trigger_sync_failed',
      'the workflow was saved but its trigger could not be updated; retry by enabling the workflow again',
    );
  }
  if (error instanceof StoreThrottledError || (isStoreFault(error) && isThrottle(error))) {
    return new ApiError(503, 'throttled', 'the service is busy; retry shortly', {
      headers: { 'Retry-After': '1' },
    });
  }
  // DynamoDB busy or briefly unreachable after the SDK's retries: the caller may retry as it is (with the
  // same Idempotency-Key for a start), which a 500 would not tell it.
  if (isTransientStoreFault(error)) {
    return new ApiError(503, 'unavailable', 'the store is briefly unavailable; retry shortly', {
      headers: { 'Retry-After': '1' },
      cause: error,
    });
  }
  return undefined;
}

/** The app's `onError`: the only place errors become responses. */
export function handleError(error: Error, c: Context): Response {
  const known = error instanceof ApiError ? error : mapDomainError(error);
  if (known) {
    // A store fault answered 503 is still the operator's to see (a run of them is an outage, not load).
    if (known.code === 'unavailable')
      console.warn(JSON.stringify({ level: 'WARN', message: 'store unavailable', error: describe(error) }));
    for (const [name, value] of Object.entries(known.headers)) c.header(name, value);
    return c.json(errorBody(known.code, known.message, known.fields), known.status);
  }
  if (error instanceof HTTPException && error.status < 500) {
    return c.json(errorBody('bad_request', error.message || 'bad request'), error.status);
  }
  // Unknown: log it for the operator, tell the caller nothing about it.
  console.error(JSON.stringify({ level: 'ERROR', message: 'unhandled API error', error: describe(error) }));
  return c.json(errorBody('internal', 'internal error'), 500);
}

function describe(error: Error) {
  return { name: error.name, message: error.message, stack: error.stack };
}
