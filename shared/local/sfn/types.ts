/** Public types of the local Step Functions stand-in (shapes follow the Step Functions API). */
import type { Clock } from '../../core/ports.ts';

/** A Lambda handler module's entry point, called in process with the Task's payload. */
export type Handler = (event: unknown) => Promise<unknown>;

/** Step Functions' payload limit (state input/output, execution input, task output): 256 KiB. */
export const SFN_PAYLOAD_LIMIT_BYTES = 262_144;

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

/** DescribeExecution's answer. `input` / `output` are JSON strings, as on AWS. */
export type ExecutionDescription = {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: ExecutionStatus;
  startDate: Date;
  stopDate?: Date;
  input: string;
  output?: string;
  error?: string;
  cause?: string;
};

/** ListExecutions' item. */
export type ExecutionSummary = Pick<
  ExecutionDescription,
  'executionArn' | 'stateMachineArn' | 'name' | 'status' | 'startDate' | 'stopDate'
>;

/**
 * A transition reported by the engine: `ExecutionStarted`, `StateEntered`, `StateExited`, `StateFailed`,
 * `StateRetried`, `StateCaught`, `ExecutionSucceeded`, `ExecutionFailed`, `ExecutionAborted`, `ExecutionTimeout`.
 */
export type LocalSfnEvent = {
  executionArn: string;
  type: string;
  timestamp: number;
  stateName?: string;
  stateType?: string;
  error?: string;
  cause?: string;
  /** State transitions of the execution so far, this event included. */
  stateTransitions: number;
};

export type LocalStepFunctionsOptions = {
  /** The ASL definition (as synthesized: Lambda ARNs may be fake). */
  definition: object;
  /** In-process handlers by handler name (`turn`, `request-approval`, …). */
  handlers: Readonly<Record<string, Handler>>;
  /** Task state name → handler name. Every Task state except `states:startExecution` needs one. */
  functionByState: Readonly<Record<string, string>>;
  /** Dates of executions (startDate, stopDate). Timers still use the real event loop. */
  clock?: Clock;
  /** Defaults to `arn:aws:states:local:000000000000:stateMachine:local`. */
  stateMachineArn?: string;
  /** Pause before each retry, in ms, by state name (aws-local-stepfunctions' `retryIntervalOverrides`). */
  retryIntervalOverrides?: Readonly<Record<string, number | number[]>>;
  /** How long each `Wait` state pauses, in ms, by state name (aws-local-stepfunctions' `waitTimeOverrides`). */
  waitTimeOverrides?: Readonly<Record<string, number>>;
  /** Called for each engine event, in order per execution. Exceptions are swallowed. */
  onEvent?(event: LocalSfnEvent): void;
};
