/**
 * Errors of the local Step Functions stand-in.
 *
 * `SfnApiError` carries the AWS error code as its `name`, exactly as `@aws-sdk/client-sfn` names its
 * exceptions (`TaskTimedOut`, `InvalidToken`, …), so code that reconciles on `error.name` takes the same
 * path against AWS, against the local endpoint, and against `LocalStepFunctions` called in process.
 */

/** The Step Functions API error codes the local stand-in can raise. */
export const SFN_ERROR_CODES = [
  'ExecutionAlreadyExists',
  'ExecutionDoesNotExist',
  'InvalidArn',
  'InvalidExecutionInput',
  'InvalidName',
  'InvalidOutput',
  'InvalidToken',
  'StateMachineDoesNotExist',
  'TaskDoesNotExist',
  'TaskTimedOut',
  'ValidationException',
] as const;

export type SfnErrorCode = (typeof SFN_ERROR_CODES)[number];

/** A Step Functions API error; `name` is the AWS error code (deliberately not the class name). */
export class SfnApiError extends Error {
  readonly code: SfnErrorCode;
  readonly $fault = 'client';
  readonly context: Record<string, unknown>;

  constructor(code: SfnErrorCode, message: string, context: Record<string, unknown> = {}) {
    super(message);
    // The SDK's exceptions are named after the AWS code; callers match on `name`.
    this.name = code;
    this.code = code;
    this.context = context;
  }
}

/** True when `error` is a Step Functions API error with this code, raised locally or by the AWS SDK. */
export function isSfnError(error: unknown, code: SfnErrorCode): boolean {
  return error instanceof Error && error.name === code;
}

/** The definition cannot run locally: a Task state without an in-process handler, an unsupported integration. */
export class LocalDefinitionError extends Error {
  readonly stateName: string | undefined;

  constructor(message: string, stateName?: string) {
    super(stateName === undefined ? message : `State '${stateName}': ${message}`);
    this.name = 'LocalDefinitionError';
    this.stateName = stateName;
  }
}

/** The stand-in was closed; it starts no more executions. */
export class LocalSfnClosedError extends Error {
  constructor() {
    super('LocalStepFunctions is closed');
    this.name = 'LocalSfnClosedError';
  }
}

/**
 * A failure thrown into the state machine by a local Task override.
 *
 * `name` is the ASL error name that `Retry` / `Catch` match (`States.Timeout`, the handler's error name, …) and
 * `message` becomes the `Cause`, as aws-local-stepfunctions reads them. `isRetryable` / `isCatchable` are the
 * flags the library checks (States.Runtime and States.DataLimitExceeded are neither, as on AWS for `States.ALL`).
 */
export class TaskFailedError extends Error {
  readonly #retryable: boolean;
  readonly #catchable: boolean;

  constructor(errorName: string, cause: string, options: { retryable?: boolean; catchable?: boolean } = {}) {
    super(cause);
    this.name = errorName;
    this.#retryable = options.retryable ?? true;
    this.#catchable = options.catchable ?? true;
  }

  get isRetryable(): boolean {
    return this.#retryable;
  }

  get isCatchable(): boolean {
    return this.#catchable;
  }
}

/**
 * Thrown by a local handler (or a test hook inside one) to stand for a Lambda invocation that never returned:
 * `crash` (out of memory, the runtime exited) or `timeout` (the function ran out of time). The Task shim turns
 * it into the error Step Functions reports for it on AWS, so the definition's `Retry` applies as it would there:
 * `crash` → `Lambda.Unknown` ("Unhandled errors in Lambda are reported as Lambda.Unknown",
 * https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html), `timeout` →
 * `Sandbox.Timedout`, the error type current Lambda runtimes give a function timeout. (A Task that outlives its
 * `TimeoutSeconds` is the library's own `States.Timeout`.)
 */
export class LambdaFault extends Error {
  readonly kind: 'crash' | 'timeout';

  constructor(kind: 'crash' | 'timeout', message: string) {
    super(message);
    this.name = 'LambdaFault';
    this.kind = kind;
  }

  /** The error name Step Functions reports for this fault. */
  get errorName(): 'Lambda.Unknown' | 'Sandbox.Timedout' {
    return this.kind === 'crash' ? 'Lambda.Unknown' : 'Sandbox.Timedout';
  }
}

/** A `States.Runtime` failure: ends the execution, no `Retry` or `Catch` applies (as on AWS). */
export function statesRuntimeError(cause: string): TaskFailedError {
  return new TaskFailedError('States.Runtime', cause, { retryable: false, catchable: false });
}
