/**
 * Prepares a synthesized ASL definition for aws-local-stepfunctions: classifies every Task state and rewrites
 * what the library would get wrong.
 *
 * - The library evaluates `TimeoutSecondsPath` against the input *after* `Parameters` (AWS: the state input), and
 *   gives a Task without a timeout 60 s (AWS: none). Every Task's `Parameters` is wrapped as
 *   `{ lsfnPayload: <original>, lsfnTimeoutSeconds.$: <path>, lsfnHeartbeatSeconds.$: <path> }` so the override
 *   receives the payload plus the values the paths select from the real state input.
 * - Lambda tasks keep the library's timer (path rewritten to `$.lsfnTimeoutSeconds`, absent → the largest timer).
 * - Callback (`.waitForTaskToken`) tasks get the largest library timer; the token registry enforces their timeout
 *   and heartbeat, so it can close the token at the exact moment the wait times out.
 * - The library sets `$$.Execution.StartTime` itself, to the real time it began running (each Map iteration is a
 *   run of its own, so there the iteration's start), over the context it is given. On AWS it is when the
 *   execution started, one value for the whole execution, the `startDate` DescribeExecution answers
 *   (https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html). Every path that
 *   selects it is rewritten to `$$.Execution.lsfnStartTime`, which the local stack sets to the execution's
 *   `startDate` (local-step-functions.ts).
 */
import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import { LocalDefinitionError } from './errors.ts';

/** Where the local stack puts the execution's start time in the context (see above). */
export const LOCAL_START_TIME = 'lsfnStartTime';

export const WRAPPED = {
  payload: 'lsfnPayload',
  timeout: 'lsfnTimeoutSeconds',
  heartbeat: 'lsfnHeartbeatSeconds',
} as const;

/** Largest setTimeout delay in whole seconds (2^31-1 ms); beyond it Node fires after 1 ms. */
export const MAX_TIMER_SECONDS = 2_147_483;

/** How a Task state runs locally. */
export type TaskPlan =
  /** `Resource` is the function ARN (LambdaInvoke with payloadResponseOnly): handler(Parameters) → result. */
  | { kind: 'function'; handlerName: string }
  /** `arn:aws:states:::lambda:invoke`: handler(Payload) → `{ Payload, StatusCode, ExecutedVersion }`. */
  | { kind: 'lambda-invoke'; handlerName: string }
  /** `arn:aws:states:::lambda:invoke.waitForTaskToken`: handler(Payload), then wait for the token. */
  | { kind: 'callback'; handlerName: string; timeoutSeconds?: number; heartbeatSeconds?: number }
  /** `arn:aws:states:::states:startExecution` (fire and forget): a local StartExecution. */
  | { kind: 'start-execution' };

export type PreparedDefinition = { definition: StateMachineDefinition; plans: Map<string, TaskPlan> };

type Json = Record<string, unknown>;

const LAMBDA_FUNCTION_ARN = /^arn:[\w-]+:lambda:[^:]*:[^:]*:function:[^:]+(:[^:]+)?$/;
const LAMBDA_INVOKE = /^arn:[\w-]+:states:::lambda:invoke$/;
const LAMBDA_CALLBACK = /^arn:[\w-]+:states:::lambda:invoke\.waitForTaskToken$/;
const START_EXECUTION = /^arn:[\w-]+:states:::states:startExecution$/;

/** Classifies and rewrites every Task state; throws `LocalDefinitionError` for what cannot run in process. */
export function prepareDefinition(
  definition: object,
  functionByState: Record<string, string>,
  handlerNames: readonly string[],
): PreparedDefinition {
  const copy = JSON.parse(JSON.stringify(definition)) as Json;
  const plans = new Map<string, TaskPlan>();
  rewriteStates(copy, functionByState, new Set(handlerNames), plans);
  rewriteStartTime(copy);
  // The library arms one setTimeout for the execution timeout; beyond 2^31-1 ms Node fires it after 1 ms.
  if (typeof copy.TimeoutSeconds === 'number')
    copy.TimeoutSeconds = Math.min(copy.TimeoutSeconds, MAX_TIMER_SECONDS);
  return { definition: copy as unknown as StateMachineDefinition, plans };
}

function rewriteStates(
  machine: Json,
  functionByState: Record<string, string>,
  handlers: Set<string>,
  plans: Map<string, TaskPlan>,
) {
  const states = machine.States;
  if (!isObject(states)) throw new LocalDefinitionError('definition has no States');
  for (const [name, state] of Object.entries(states)) {
    if (!isObject(state)) continue;
    if (state.Type === 'Task') {
      if (plans.has(name))
        throw new LocalDefinitionError('Task state names must be unique across branches', name);
      plans.set(name, rewriteTask(name, state, functionByState, handlers));
    }
    for (const nested of [
      ...(Array.isArray(state.Branches) ? state.Branches : []),
      state.Iterator,
      state.ItemProcessor,
    ]) {
      if (isObject(nested)) rewriteStates(nested, functionByState, handlers, plans);
    }
  }
}

function rewriteTask(
  name: string,
  state: Json,
  functionByState: Record<string, string>,
  handlers: Set<string>,
): TaskPlan {
  const plan = classify(name, state, functionByState, handlers);
  const original =
    'Parameters' in state ? { [WRAPPED.payload]: state.Parameters } : { [`${WRAPPED.payload}.$`]: '$' };
  const wrapped: Json = { ...original };
  if (typeof state.TimeoutSecondsPath === 'string')
    wrapped[`${WRAPPED.timeout}.$`] = state.TimeoutSecondsPath;
  if (typeof state.HeartbeatSecondsPath === 'string')
    wrapped[`${WRAPPED.heartbeat}.$`] = state.HeartbeatSecondsPath;
  state.Parameters = wrapped;

  const staticTimeout = typeof state.TimeoutSeconds === 'number' ? state.TimeoutSeconds : undefined;
  const staticHeartbeat = typeof state.HeartbeatSeconds === 'number' ? state.HeartbeatSeconds : undefined;
  const timeoutFromPath = typeof state.TimeoutSecondsPath === 'string';
  delete state.TimeoutSecondsPath;
  delete state.HeartbeatSeconds;
  delete state.HeartbeatSecondsPath;
  if (plan.kind === 'callback') {
    state.TimeoutSeconds = MAX_TIMER_SECONDS;
    return {
      ...plan,
      ...(staticTimeout === undefined ? {} : { timeoutSeconds: staticTimeout }),
      ...(staticHeartbeat === undefined ? {} : { heartbeatSeconds: staticHeartbeat }),
    };
  }
  if (timeoutFromPath) {
    delete state.TimeoutSeconds;
    state.TimeoutSecondsPath = `$.${WRAPPED.timeout}`;
  } else {
    state.TimeoutSeconds = Math.min(staticTimeout ?? MAX_TIMER_SECONDS, MAX_TIMER_SECONDS);
  }
  return plan;
}

function classify(
  name: string,
  state: Json,
  functionByState: Record<string, string>,
  handlers: Set<string>,
): TaskPlan {
  const resource = state.Resource;
  if (typeof resource !== 'string')
    throw new LocalDefinitionError('Resource is not a string (unresolved token?)', name);
  if (START_EXECUTION.test(resource)) return { kind: 'start-execution' };
  const handlerName = functionByState[name];
  if (handlerName === undefined) {
    throw new LocalDefinitionError(`no handler mapped for Resource ${resource} (functionByState)`, name);
  }
  if (!handlers.has(handlerName))
    throw new LocalDefinitionError(`handler '${handlerName}' is not provided`, name);
  if (LAMBDA_CALLBACK.test(resource)) return { kind: 'callback', handlerName };
  if (LAMBDA_INVOKE.test(resource)) return { kind: 'lambda-invoke', handlerName };
  if (LAMBDA_FUNCTION_ARN.test(resource)) return { kind: 'function', handlerName };
  throw new LocalDefinitionError(`unsupported Resource ${resource}`, name);
}

const START_TIME_PATH = /\$\$\.Execution\.StartTime(?![\w$])/g;

/**
 * Points every path at the local stack's start time: the values of `<key>.$` (payload templates, intrinsic
 * functions included), `InputPath`, `OutputPath`, `ItemsPath`, a Choice's `Variable` and its `…Path` operands.
 */
function rewriteStartTime(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) rewriteStartTime(item);
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (typeof value === 'string') {
      if (key.endsWith('.$') || key.endsWith('Path') || key === 'Variable')
        node[key] = value.replace(START_TIME_PATH, `$$$$.Execution.${LOCAL_START_TIME}`);
    } else rewriteStartTime(value);
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
