/**
 * Names shared by the CDK state machine, the local runner and the tests (docs/state-machine.md).
 * This file imports nothing, so the local stack can read it without loading aws-cdk-lib.
 */

/** The state names of the run state machine: the contract between the CDK, the local runner and tests. */
export const STATE_NAMES = {
  turn: 'Turn',
  route: 'Route',
  requestApproval: 'RequestApproval',
  expire: 'Expire',
  deliver: 'Deliver',
  markFailed: 'MarkFailed',
  continueAsNew: 'ContinueAsNew',
  failed: 'Failed',
} as const;

export type StateName = (typeof STATE_NAMES)[keyof typeof STATE_NAMES];

/** The values of `$.next` that the `Turn` handler returns and `Route` branches on. */
export const ROUTE_NEXT = {
  continue: 'continue',
  awaitApproval: 'await_approval',
  done: 'done',
  failed: 'failed',
  continueAsNew: 'continue_as_new',
} as const;

/** The handler modules (`functions/<name>.ts`), one per Lambda function of the runtime. */
export const HANDLER_NAMES = [
  'turn',
  'request-approval',
  'expire',
  'deliver',
  'mark-failed',
  'approval-http',
  'api',
  'workflow-write',
  'start-run',
  'jobs-sweep',
  'mcp',
  'graph-advance',
  'graph-service',
  'graph-wait',
  'human-task',
  'external',
] as const;

export type HandlerName = (typeof HANDLER_NAMES)[number];

/** Which handler each Lambda-backed Task state invokes. `ContinueAsNew` is `states:startExecution`, not a Lambda. */
export const HANDLER_BY_STATE = {
  [STATE_NAMES.turn]: 'turn',
  [STATE_NAMES.requestApproval]: 'request-approval',
  [STATE_NAMES.expire]: 'expire',
  [STATE_NAMES.deliver]: 'deliver',
  [STATE_NAMES.markFailed]: 'mark-failed',
} as const satisfies Partial<Record<StateName, HandlerName>>;

/** Lambda service errors that Step Functions retries (transient faults of the Lambda service, not of the handler). */
export const LAMBDA_SERVICE_ERRORS = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
] as const;

/**
 * Lambda throttled the invocation (the account's or the function's concurrency is used up): the handler never
 * ran, so waiting is always safe. A busy account can stay saturated for minutes, so these get a retrier of their
 * own with a long window (run-state-machine.ts, LAMBDA_THROTTLE_RETRY;
 * https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html).
 */
export const LAMBDA_THROTTLE_ERRORS = ['Lambda.TooManyRequestsException'] as const;

/**
 * How a Lambda invocation that never returned is reported: the function crashed (out of memory, runtime exit)
 * or ran out of time. "Unhandled errors in Lambda are reported as Lambda.Unknown … These include out-of-memory
 * errors and function timeouts" (https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html);
 * current Lambda runtimes name a function timeout `Sandbox.Timedout`; a Task state that outlives its
 * `TimeoutSeconds` fails with `States.Timeout`
 * (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html). Retrying them is safe
 * only because every handler is idempotent (docs/state-machine.md, "Crash retries").
 */
export const LAMBDA_CRASH_ERRORS = ['Lambda.Unknown', 'Sandbox.Timedout', 'States.Timeout'] as const;

/** The engine's retryable error names (`error.name` of errors thrown by handlers); nothing else is retried. */
export const ENGINE_RETRYABLE_ERRORS = [
  'ModelRateLimitedError',
  'ModelOverloadedError',
  'ModelServerError',
  'ModelConnectionError',
  'StoreThrottledError',
  // A credential the answer must be redacted of could not be loaded (shared/core/redaction.ts): the cap frees up.
  'CredentialUnavailableError',
  // A graph decision made again after write conflicts found its invocation's expression steps used up by the
  // tries before it (shared/graph/expression-bounds.ts): nothing was recorded; a fresh invocation has them all.
  'InvocationStepsSpentError',
] as const;

/** The state names of the graph state machine (docs/state-machine.md, "The graph machine"). */
export const GRAPH_STATE_NAMES = {
  advance: 'Advance',
  route: 'RouteGraph',
  serviceStep: 'ServiceStep',
  runSteps: 'RunSteps',
  stepType: 'StepType',
  serviceTask: 'ServiceTask',
  agentTask: 'AgentTask',
  humanTask: 'HumanTask',
  serviceWaits: 'ServiceWaits',
  approveServiceStep: 'ApproveServiceStep',
  expireStepApproval: 'ExpireStepApproval',
  serviceTaskEnded: 'ServiceTaskEnded',
  externalTask: 'ExternalTask',
  awaitResume: 'AwaitResume',
  completeStep: 'CompleteStep',
  recordStepError: 'RecordStepError',
  deliver: 'DeliverGraph',
  markFailed: 'MarkGraphFailed',
  stopped: 'GraphStopped',
  failed: 'GraphFailed',
} as const;

/** The values of `$.next` that `Advance` (and a lone service step) return. */
export const GRAPH_NEXT = {
  service: 'service',
  steps: 'steps',
  done: 'done',
  paused: 'paused',
  failed: 'failed',
  stop: 'stop',
  /** Inside the Map only: a service step waits on its approval (`ApproveServiceStep`). */
  approval: 'approval',
} as const;

/** Which handler each Lambda-backed Task state of the graph machine invokes. */
export const GRAPH_HANDLER_BY_STATE = {
  [GRAPH_STATE_NAMES.advance]: 'graph-advance',
  [GRAPH_STATE_NAMES.serviceStep]: 'graph-service',
  [GRAPH_STATE_NAMES.serviceTask]: 'graph-service',
  [GRAPH_STATE_NAMES.agentTask]: 'graph-wait',
  [GRAPH_STATE_NAMES.humanTask]: 'human-task',
  [GRAPH_STATE_NAMES.externalTask]: 'graph-wait',
  [GRAPH_STATE_NAMES.awaitResume]: 'graph-wait',
  [GRAPH_STATE_NAMES.approveServiceStep]: 'request-approval',
  [GRAPH_STATE_NAMES.expireStepApproval]: 'expire',
  [GRAPH_STATE_NAMES.completeStep]: 'graph-advance',
  [GRAPH_STATE_NAMES.recordStepError]: 'graph-advance',
  [GRAPH_STATE_NAMES.deliver]: 'deliver',
  [GRAPH_STATE_NAMES.markFailed]: 'mark-failed',
} as const satisfies Record<string, HandlerName>;

/** The state names of the external state machine (docs/state-machine.md, "The external machine"). */
export const EXTERNAL_STATE_NAMES = {
  start: 'ExternalStart',
  route: 'RouteExternal',
  wait: 'ObserveWait',
  startWait: 'StartWait',
  observe: 'ExternalObserve',
  finish: 'ExternalFinish',
  deliver: 'DeliverExternal',
  abandon: 'AbandonExternal',
  markFailed: 'MarkExternalFailed',
  stopped: 'ExternalStopped',
  failed: 'ExternalFailed',
} as const;

/** The values of `$.next` the external steps return (shared/external/run/ports.ts). */
export const EXTERNAL_NEXT = {
  wait: 'wait',
  retryStart: 'retry_start',
  finish: 'finish',
  deliver: 'deliver',
  stop: 'stop',
} as const;

/** Which handler each Lambda-backed Task state of the external machine invokes. */
export const EXTERNAL_HANDLER_BY_STATE = {
  [EXTERNAL_STATE_NAMES.start]: 'external',
  [EXTERNAL_STATE_NAMES.observe]: 'external',
  [EXTERNAL_STATE_NAMES.finish]: 'external',
  [EXTERNAL_STATE_NAMES.deliver]: 'deliver',
  [EXTERNAL_STATE_NAMES.abandon]: 'external',
  [EXTERNAL_STATE_NAMES.markFailed]: 'mark-failed',
} as const satisfies Record<string, HandlerName>;

/** Start's "no usable answer / retry later" (shared/external/run/ports.ts): retried with the same key. */
export const EXTERNAL_RETRY_LATER_ERRORS = ['ExternalRetryLaterError'] as const;

/**
 * The Task states that end an execution (`End: true`): `Deliver` and `ContinueAsNew` of the run machine,
 * `DeliverGraph`, `DeliverExternal`. No Succeed state follows them, because:
 * - Standard workflows bill state transitions: "Step Functions counts a state transition each time a step of
 *   your workflow is executed" (https://aws.amazon.com/step-functions/pricing/). A Succeed state after the
 *   last task was one more transition per execution.
 * - A Task may be terminal. `End`: "Designates this state as a terminal state (ends the execution) if set to
 *   true … Some state types, such as Choice, or terminal states, such as Succeed and Fail, don't support or use
 *   the End field"; the execution goes on "until the system reaches a terminal state (a state with
 *   "Type": "Succeed", "Type": "Fail", or "End": true)"
 *   (https://docs.aws.amazon.com/step-functions/latest/dg/statemachine-structure.html). It ends SUCCEEDED
 *   with the task's output, here its input (`ResultPath: null`), as the Succeed state passing its input on did
 *   (https://docs.aws.amazon.com/step-functions/latest/dg/state-succeed.html). A Choice cannot be terminal,
 *   so the `stop` branches keep their Succeed states (GraphStopped, ExternalStopped).
 * - Upgrades are safe: "Running executions will continue to use the previous definition and roleArn"
 *   (https://docs.aws.amazon.com/step-functions/latest/apireference/API_UpdateStateMachine.html): an execution
 *   started with the Succeed state still ends through it; a continue-as-new starts its fresh execution on the
 *   new definition with the same pointer.
 * Checked offline (test/infra: no Succeed state after these tasks, each has `End: true` and no `Next`) and on
 * the local stack (test/local/sfn: runs end SUCCEEDED with the terminal task as the last state entered).
 */
export const TERMINAL_TASKS = {
  run: [STATE_NAMES.deliver, STATE_NAMES.continueAsNew],
  graph: [GRAPH_STATE_NAMES.deliver],
  external: [EXTERNAL_STATE_NAMES.deliver],
} as const;
