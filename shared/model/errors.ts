/**
 * Model errors. Every failure of a `ModelPort` call is one of these classes.
 * Their `name` values are a public contract: Step Functions `Retry`/`Catch` match on them
 * (Lambda reports `error.name` as the error type), so never rename them.
 */

/** Context common to every model error. */
export type ModelErrorOptions = {
  /** HTTP status of the API response, when there was one. */
  status?: number | undefined;
  /** The API's `error.type` (e.g. `rate_limit_error`), when there was one. */
  type?: string | undefined;
  /** The API's `request-id`, when there was one. */
  requestId?: string | undefined;
  cause?: unknown;
};

/** Base class of every model error; `retryable` says whether the same call may succeed later. */
export class ModelError extends Error {
  readonly status: number | undefined;
  readonly type: string | undefined;
  readonly requestId: string | undefined;
  readonly retryable: boolean;

  constructor(message: string, retryable: boolean, options: ModelErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'ModelError';
    this.retryable = retryable;
    this.status = options.status;
    this.type = options.type;
    this.requestId = options.requestId;
  }
}

/** 429: the account's rate limit was hit. Retryable. */
export class ModelRateLimitedError extends ModelError {
  constructor(message: string, options: ModelErrorOptions = {}) {
    super(message, true, options);
    this.name = 'ModelRateLimitedError';
  }
}

/** 529 (or an `overloaded_error` event mid-stream): the API is overloaded. Retryable. */
export class ModelOverloadedError extends ModelError {
  constructor(message: string, options: ModelErrorOptions = {}) {
    super(message, true, options);
    this.name = 'ModelOverloadedError';
  }
}

/** Other 5xx (or an `api_error` event mid-stream). Retryable. */
export class ModelServerError extends ModelError {
  constructor(message: string, options: ModelErrorOptions = {}) {
    super(message, true, options);
    this.name = 'ModelServerError';
  }
}

/** The API could not be reached, the request timed out, or the stream broke off. Retryable. */
export class ModelConnectionError extends ModelError {
  constructor(message: string, options: ModelErrorOptions = {}) {
    super(message, true, options);
    this.name = 'ModelConnectionError';
  }
}

/** 400 and other 4xx without a class of their own: the request is wrong; retrying cannot help. */
export class ModelBadRequestError extends ModelError {
  constructor(message: string, options: ModelErrorOptions = {}) {
    super(message, false, options);
    this.name = 'ModelBadRequestError';
  }
}

/** 401/403: the key is missing, wrong or lacks permission. Not retryable. */
export class ModelAuthError extends ModelError {
  constructor(message: string, options: ModelErrorOptions = {}) {
    super(message, false, options);
    this.name = 'ModelAuthError';
  }
}

/** 404: typically an unknown or retired model id. Not retryable. */
export class ModelNotFoundError extends ModelError {
  constructor(message: string, options: ModelErrorOptions = {}) {
    super(message, false, options);
    this.name = 'ModelNotFoundError';
  }
}

/** The API answered with something this runtime cannot represent (unknown stop reason or block). */
export class ModelResponseError extends ModelError {
  constructor(message: string, options: ModelErrorOptions = {}) {
    super(message, false, options);
    this.name = 'ModelResponseError';
  }
}

/** Model configuration is wrong (e.g. an unknown role). Not retryable. */
export class ModelConfigError extends ModelError {
  constructor(message: string, options: ModelErrorOptions = {}) {
    super(message, false, options);
    this.name = 'ModelConfigError';
  }
}

/** Names of the retryable model errors, for Step Functions `Retry.ErrorEquals`. */
export const RETRYABLE_MODEL_ERROR_NAMES = [
  'ModelRateLimitedError',
  'ModelOverloadedError',
  'ModelServerError',
  'ModelConnectionError',
] as const;

/** Whether a thrown value is a model error that may succeed when the same call is made again. */
export function isRetryableModelError(error: unknown): boolean {
  return error instanceof ModelError && error.retryable;
}

/** A scripted-model fixture is invalid or fixtures conflict (test tooling, thrown at server start). */
export class ScriptedFixtureError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'ScriptedFixtureError';
  }
}
