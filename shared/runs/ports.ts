/** Ports of the run service: starting and stopping executions of the run state machine. */
import type { TurnPointer } from '../core/outcome.ts';
import type { Run } from '../schemas/run.ts';

/**
 * A run execution's input: the run pointer, and for a run's first execution where its workflow head is
 * (`headHint`: owner and workflow ids, the key of an item its first turn reads anyway), so that turn reads the
 * run, its first message and the head in one request (shared/core/turn-context.ts). A hint: the run decides.
 */
export type RunExecutionInput = TurnPointer & { headHint?: { owner: string; workflowId: string } };

export interface ExecutionsPort {
  /**
   * Starts an execution for a run. `name` makes the start idempotent: a second start with the same name
   * and input is the same execution (Step Functions' own semantics). Throws `ExecutionNotStartedError` only
   * when the start was refused so that no execution of that name exists; any other error may have started it.
   */
  start(name: string, input: RunExecutionInput): Promise<{ executionArn: string }>;
  /** Stops a running execution; an already-finished one is not an error. */
  stop(executionArn: string, cause: string): Promise<void>;
  /**
   * Whether the execution of this ARN exists (DescribeExecution): false only when Step Functions answers that it
   * does not; any other failure is thrown. Absent on ports that cannot say.
   */
  exists?(executionArn: string): Promise<boolean>;
  /**
   * The ARN execution `name` of the state machine for runs of `kind` has, or would have once started: on Step
   * Functions it is deterministic (`arn:<partition>:states:<region>:<account>:execution:<state machine>:<name>`,
   * https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html), so a run's first
   * execution, named after the run, is known at creation and never stored (shared/runs/execution-arn.ts).
   * Undefined for a kind without a state machine here; absent on ports that cannot say, which then record the
   * ARN that `start` returned on the run, as before.
   */
  arnOf?(kind: Run['kind'], name: string): string | undefined;
  /** Executions of the graph state machine (graph runs); absent where none is configured. */
  graph?: GraphExecutionsPort;
  /** Executions of the external state machine (external runs, input `{ runId }`); absent where none is configured. */
  external?: GraphExecutionsPort;
}

/** Starting executions of the graph state machine: the input is `{ runId }` only. */
export interface GraphExecutionsPort {
  /** Idempotent by `name`, as `ExecutionsPort.start`. */
  start(name: string, pointer: { runId: string }): Promise<{ executionArn: string }>;
}

/** The start was refused (an invalid name or input, a missing state machine, a limit): no execution exists. */
export class ExecutionNotStartedError extends Error {
  override readonly name = 'ExecutionNotStartedError';
  constructor(executionName: string, options: { cause: unknown }) {
    super(
      `execution ${executionName} was not started: ${(options.cause as Error)?.message ?? options.cause}`,
      options,
    );
  }
}

/**
 * A run this call created could not be started and was ended `failed` (its turn 0 reservation given back in
 * the same commit): no trigger can find it to start it again (it has no idempotency key). The caller is told
 * the run's id; starting again starts a new run.
 */
export class RunNotStartedError extends Error {
  override readonly name = 'RunNotStartedError';
  readonly runId: string;
  constructor(runId: string, options: { cause: unknown }) {
    super(
      `run ${runId} was ended failed: its execution could not be started (${(options.cause as Error)?.message ?? options.cause})`,
      options,
    );
    this.runId = runId;
  }
}

/**
 * A run was created (or found `pending` again) and its execution could not be started, or nothing could say
 * whether it started: the run stays `pending` with its reservation counted. With an idempotency key (a keyed API
 * start, a trigger's scheduled time or event id, a job's attempt) the same request again starts it, by the
 * run's name; the jobs sweep ends it `failed` (`ExecutionNotStarted`) once it has been pending 10 minutes with no
 * execution (shared/runs/pending-sweep.ts). `cause` is the start's (or the describe's) error.
 */
export class RunStartPendingError extends Error {
  override readonly name = 'RunStartPendingError';
  readonly runId: string;
  /** Whether a repeat of the request finds this run (it was created with an idempotency key). */
  readonly keyed: boolean;
  constructor(runId: string, keyed: boolean, options: { cause: unknown }) {
    super(
      `run ${runId} is pending: its execution could not be started (${(options.cause as Error)?.message ?? options.cause})`,
      options,
    );
    this.runId = runId;
    this.keyed = keyed;
  }
}
