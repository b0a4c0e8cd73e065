/**
 * The bookkeeping of one local execution and its translation to the API's answers: DescribeExecution's shape,
 * the outcome of a finished run, the error that closes the waits of an execution that stopped.
 */
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  StateMachine,
  type StateMachineDefinition,
} from 'aws-local-stepfunctions';
import { TaskFailedError } from './errors.ts';
import type { ExecutionDescription, ExecutionStatus } from './types.ts';

export type Outcome = {
  status: ExecutionStatus;
  output?: string;
  error?: string | undefined;
  cause?: string | undefined;
};

export type ExecutionRecord = Omit<ExecutionDescription, 'output' | 'error' | 'cause' | 'stopDate'> & {
  output?: string | undefined;
  error?: string | undefined;
  cause?: string | undefined;
  stopDate?: Date;
  stateTransitions: number;
  historyEvents: number;
  abort?: () => void;
  /** Settles once the outcome is recorded and every engine event was counted. */
  done: Promise<void>;
  finish(): void;
};

/** Definitions already validated: asl-validator compiles its schemas on each call (~0.5 s). */
const validatedDefinitions = new Set<string>();

/** A StateMachine for the prepared definition, validated once per process. */
export function createMachine(definition: StateMachineDefinition): StateMachine {
  const key = JSON.stringify(definition);
  const machine = new StateMachine(
    definition,
    validatedDefinitions.has(key) ? { validationOptions: { noValidate: true } } : undefined,
  );
  validatedDefinitions.add(key);
  return machine;
}

/** DescribeExecution's answer for a record. */
export function describe(record: ExecutionRecord): ExecutionDescription {
  const { executionArn, stateMachineArn, name, status, startDate, stopDate, input, output, error, cause } =
    record;
  return {
    executionArn,
    stateMachineArn,
    name,
    status,
    startDate,
    input,
    ...(stopDate ? { stopDate } : {}),
    ...(output === undefined ? {} : { output }),
    ...(error === undefined ? {} : { error }),
    ...(cause === undefined ? {} : { cause }),
  };
}

/** The status, output, error and cause of an execution whose result promise settled. */
export function outcomeOf(error: unknown): Outcome {
  if (error instanceof ExecutionAbortedError) return { status: 'ABORTED' };
  if (error instanceof ExecutionTimeoutError) return { status: 'TIMED_OUT' };
  const failure = error instanceof ExecutionError && error.cause instanceof Error ? error.cause : error;
  if (!(failure instanceof Error)) return { status: 'FAILED', cause: String(failure) };
  // A Fail state without Error / Cause: the library fills in its own defaults; AWS leaves them empty.
  const isFailState = failure.constructor.name === 'FailStateError';
  const errorName = isFailState && failure.name === 'FailStateError' ? undefined : failure.name;
  const cause =
    isFailState && failure.message === 'Execution failed because of a Fail state'
      ? undefined
      : failure.message;
  return { status: 'FAILED', error: errorName, cause };
}

/** What the waits of an execution that is no longer running are rejected with (no Retry, no Catch). */
export function stopped(): TaskFailedError {
  return new TaskFailedError('Local.ExecutionStopped', 'The execution is no longer running.', {
    retryable: false,
    catchable: false,
  });
}
