/**
 * The Task overrides of one execution: every Task state runs in process instead of calling AWS.
 * Lambda tasks call the handler module; callback tasks mint a token and wait on it; startExecution tasks start
 * a local execution of the same state machine (ContinueAsNew).
 */
import type { RunOptions } from 'aws-local-stepfunctions';
import { type TaskPlan, WRAPPED } from './definition.ts';
import { LambdaFault, SfnApiError, statesRuntimeError, TaskFailedError } from './errors.ts';
import type { TaskTokens } from './tokens.ts';
import { type Handler, SFN_PAYLOAD_LIMIT_BYTES } from './types.ts';

type LocalHandlers = NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']>;
type JsonValue = Parameters<LocalHandlers[string]>[0];

/** What `$$.Task.Token` resolves to in the context; each callback wait swaps it for its own fresh token. */
export const TASK_TOKEN_PLACEHOLDER = 'lsfn:task-token-placeholder';

/**
 * What `$$.State.RetryCount` resolves to in the context (the library has no `State` node); each Task attempt
 * swaps it for the attempt's own count (retry-counts.ts).
 */
export const RETRY_COUNT_PLACEHOLDER = 'lsfn:state-retry-count-placeholder';

export type StartRequest = { stateMachineArn: string; name?: string; input: string };

export type TaskEnvironment = {
  executionArn: string;
  handlers: Readonly<Record<string, Handler>>;
  tokens: TaskTokens;
  isStopped(): boolean;
  startExecution(request: StartRequest): { executionArn: string; startDate: Date };
  /** `$$.State.RetryCount` of this attempt of `stateName` (retry-counts.ts). */
  retryCount(stateName: string): Promise<number>;
};

/** The `taskResourceLocalHandlers` of one execution. */
export function buildTaskOverrides(
  plans: ReadonlyMap<string, TaskPlan>,
  env: TaskEnvironment,
): LocalHandlers {
  const overrides: LocalHandlers = {};
  for (const [stateName, plan] of plans) {
    overrides[stateName] = (input) => runTask(stateName, plan, input, env);
  }
  return overrides;
}

async function runTask(
  stateName: string,
  plan: TaskPlan,
  input: JsonValue,
  env: TaskEnvironment,
): Promise<JsonValue> {
  // The library retries a state once more after an abort (the backoff sleep ends on abort); a stopped
  // execution must not invoke handlers any more.
  if (env.isStopped())
    throw new TaskFailedError('Local.ExecutionStopped', 'The execution was stopped.', {
      retryable: false,
      catchable: false,
    });
  const wrapped = await withRetryCount(stateName, asObject(input), env);
  const payload = wrapped[WRAPPED.payload];
  switch (plan.kind) {
    case 'function':
      return limited(await invoke(env, plan.handlerName, payload));
    case 'lambda-invoke':
      return limited({
        ExecutedVersion: '$LATEST',
        Payload: await invoke(env, plan.handlerName, asObject(payload).Payload),
        StatusCode: 200,
      });
    case 'callback':
      return limited(await waitForToken(stateName, plan, wrapped, env));
    case 'start-execution':
      return startExecution(asObject(payload), env);
  }
}

async function waitForToken(
  stateName: string,
  plan: Extract<TaskPlan, { kind: 'callback' }>,
  wrapped: Record<string, unknown>,
  env: TaskEnvironment,
): Promise<JsonValue> {
  const timeoutSeconds = plan.timeoutSeconds ?? seconds(wrapped[WRAPPED.timeout], 'TimeoutSecondsPath');
  const heartbeatSeconds =
    plan.heartbeatSeconds ?? seconds(wrapped[WRAPPED.heartbeat], 'HeartbeatSecondsPath');
  // The wait (and its timers) opens before the handler runs: on AWS the timeout counts from scheduling, and a
  // handler may call SendTaskSuccess before it returns.
  const { token, result } = env.tokens.open({
    executionArn: env.executionArn,
    stateName,
    ...(timeoutSeconds === undefined ? {} : { timeoutMs: timeoutSeconds * 1000 }),
    ...(heartbeatSeconds === undefined ? {} : { heartbeatMs: heartbeatSeconds * 1000 }),
  });
  const parameters = asObject(wrapped[WRAPPED.payload]);
  try {
    await invoke(env, plan.handlerName, withToken(parameters.Payload, token));
  } catch (error) {
    env.tokens.close(token, error as Error);
    throw error;
  }
  return (await result) as JsonValue;
}

function startExecution(parameters: Record<string, unknown>, env: TaskEnvironment): JsonValue {
  const input =
    typeof parameters.Input === 'string' ? parameters.Input : JSON.stringify(parameters.Input ?? {});
  try {
    const started = env.startExecution({
      stateMachineArn: String(parameters.StateMachineArn),
      input,
      ...(typeof parameters.Name === 'string' ? { name: parameters.Name } : {}),
    });
    return { ExecutionArn: started.executionArn, StartDate: started.startDate.getTime() };
  } catch (error) {
    // Service integrations surface API errors as `SFN.<Code>Exception`.
    if (error instanceof SfnApiError) throw new TaskFailedError(`SFN.${error.code}Exception`, error.message);
    throw error;
  }
}

async function invoke(env: TaskEnvironment, handlerName: string, event: unknown): Promise<JsonValue> {
  const handler = env.handlers[handlerName];
  if (!handler) throw statesRuntimeError(`No handler '${handlerName}'`);
  let result: unknown;
  try {
    // A Lambda receives and returns JSON: no shared references with the state machine.
    result = await handler(event === undefined ? null : JSON.parse(JSON.stringify(event)));
  } catch (error) {
    throw lambdaFunctionError(error);
  }
  return result === undefined ? null : (JSON.parse(JSON.stringify(result)) as JsonValue);
}

/**
 * A handler's exception as Step Functions sees a Lambda function error: error = errorType, cause = the JSON.
 * A `LambdaFault` (the invocation never returned) is the error AWS reports for a crash or a timeout instead.
 */
function lambdaFunctionError(error: unknown): TaskFailedError {
  if (error instanceof LambdaFault) {
    const cause = JSON.stringify({ errorType: error.errorName, errorMessage: error.message });
    return new TaskFailedError(error.errorName, cause);
  }
  const failure = error instanceof Error ? error : new Error(String(error));
  const errorType = failure.name || 'Error';
  const cause = JSON.stringify({
    errorType,
    errorMessage: failure.message,
    trace: failure.stack?.split('\n') ?? [],
  });
  return new TaskFailedError(errorType, cause);
}

function limited(value: JsonValue): JsonValue {
  const bytes = Buffer.byteLength(JSON.stringify(value));
  if (bytes > SFN_PAYLOAD_LIMIT_BYTES) {
    throw new TaskFailedError(
      'States.DataLimitExceeded',
      `The state result has ${bytes} bytes; the limit is ${SFN_PAYLOAD_LIMIT_BYTES}.`,
      {
        retryable: false,
        catchable: false,
      },
    );
  }
  return value;
}

function seconds(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw statesRuntimeError(`${field} must select a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

function withToken(value: unknown, token: string): unknown {
  return replacing(value, TASK_TOKEN_PLACEHOLDER, token);
}

/** The Task's parameters with `$$.State.RetryCount` resolved for this attempt (only when they select it). */
async function withRetryCount(
  stateName: string,
  wrapped: Record<string, unknown>,
  env: TaskEnvironment,
): Promise<Record<string, unknown>> {
  if (!JSON.stringify(wrapped).includes(RETRY_COUNT_PLACEHOLDER)) return wrapped;
  return asObject(replacing(wrapped, RETRY_COUNT_PLACEHOLDER, await env.retryCount(stateName)));
}

function replacing(value: unknown, placeholder: string, by: unknown): unknown {
  if (value === placeholder) return by;
  if (Array.isArray(value)) return value.map((item) => replacing(item, placeholder, by));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, replacing(item, placeholder, by)]),
    );
  }
  return value;
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
