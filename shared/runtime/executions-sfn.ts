/** ExecutionsPort on Step Functions (AWS, or the local stack's Step Functions endpoint). */
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  ExecutionLimitExceeded,
  InvalidArn,
  InvalidExecutionInput,
  InvalidName,
  type SFNClient,
  StartExecutionCommand,
  StateMachineDeleting,
  StateMachineDoesNotExist,
  StopExecutionCommand,
  ValidationException,
} from '@aws-sdk/client-sfn';
import { sfnFailureFields } from '../core/sfn-failure.ts';
import { checkExecutionName, ExecutionNameError } from '../runs/execution-name.ts';
import { ExecutionNotStartedError, type ExecutionsPort } from '../runs/ports.ts';

/**
 * StartExecution's documented errors other than ExecutionAlreadyExists
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html#API_StartExecution_Errors):
 * the request was refused, no execution was created. A name refused here never reached the service. Anything
 * else (a throttle, a 5xx, a timeout) may have started it, and is passed on as it is.
 */
const refusedStart = (error: unknown): boolean =>
  error instanceof ExecutionNameError ||
  [
    ExecutionLimitExceeded,
    InvalidArn,
    InvalidExecutionInput,
    InvalidName,
    StateMachineDeleting,
    StateMachineDoesNotExist,
    ValidationException,
  ].some((refusal) => error instanceof refusal);

/** The ARN of execution `name` of a state machine (what StartExecution would have returned). */
export const executionArnOf = (stateMachineArn: string, name: string): string =>
  `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;

/**
 * StopExecution only, for functions that stop executions they know by ARN and start none (mark-failed and
 * graph-advance stop a graph's agent child runs: shared/graph-run/end-children.ts). An execution that does not
 * exist (yet) is not an error.
 */
export function sfnExecutionStops(client: Pick<SFNClient, 'send'>): Pick<ExecutionsPort, 'stop'> {
  return {
    async stop(executionArn, cause) {
      try {
        // Cut to the API's caps: a longer cause is refused, and the execution would run on.
        await client.send(
          new StopExecutionCommand({ executionArn, ...sfnFailureFields('Cancelled', cause) }),
        );
      } catch (error) {
        if (!(error instanceof ExecutionDoesNotExist)) throw error;
      }
    },
  };
}

/** Executions of the run state machine, and of the graph and external state machines when their ARNs are given. */
export function sfnExecutions(
  client: Pick<SFNClient, 'send'>,
  stateMachineArn: string,
  graphStateMachineArn?: string,
  externalStateMachineArn?: string,
): ExecutionsPort {
  // The local Step Functions stand-in takes names AWS refuses: both refuse them here, before any call.
  const startOn = async (arn: string, name: string, input: object) => {
    try {
      const response = await client.send(
        new StartExecutionCommand({
          stateMachineArn: arn,
          name: checkExecutionName(name),
          input: JSON.stringify(input),
        }),
      );
      return { executionArn: response.executionArn ?? executionArnOf(arn, name) };
    } catch (error) {
      // The same name was started before (a retried trigger): that execution is the run's.
      if (error instanceof ExecutionAlreadyExists) return { executionArn: executionArnOf(arn, name) };
      throw error;
    }
  };
  return {
    ...(graphStateMachineArn
      ? { graph: { start: (name, pointer) => startOn(graphStateMachineArn, name, { runId: pointer.runId }) } }
      : {}),
    ...(externalStateMachineArn
      ? {
          external: {
            start: (name, pointer) => startOn(externalStateMachineArn, name, { runId: pointer.runId }),
          },
        }
      : {}),
    async start(name, pointer) {
      try {
        const response = await client.send(
          new StartExecutionCommand({
            stateMachineArn,
            name: checkExecutionName(name),
            input: JSON.stringify(pointer),
          }),
        );
        return { executionArn: response.executionArn ?? executionArnOf(stateMachineArn, name) };
      } catch (error) {
        // The same name was started before (a retried trigger): that execution is the run's.
        if (error instanceof ExecutionAlreadyExists)
          return { executionArn: executionArnOf(stateMachineArn, name) };
        throw refusedStart(error) ? new ExecutionNotStartedError(name, { cause: error }) : error;
      }
    },
    arnOf(kind, name) {
      const machine =
        kind === 'graph'
          ? graphStateMachineArn
          : kind === 'external'
            ? externalStateMachineArn
            : stateMachineArn;
      return machine === undefined ? undefined : executionArnOf(machine, name);
    },
    stop: sfnExecutionStops(client).stop,
    // An API start whose StartExecution may have happened asks whether it did (shared/runs/start-run.ts):
    // ExecutionDoesNotExist is the documented answer for none
    // (https://docs.aws.amazon.com/step-functions/latest/apireference/API_DescribeExecution.html#API_DescribeExecution_Errors).
    // DescribeExecution is eventually consistent ("may not reflect very recent updates", same page), so "none"
    // can be stale for an execution that just started. That is safe: the run is then ended, and the
    // execution's first turn finds it terminal and returns before any model call (shared/core/turn.ts).
    async exists(executionArn) {
      try {
        await client.send(new DescribeExecutionCommand({ executionArn }));
        return true;
      } catch (error) {
        if (error instanceof ExecutionDoesNotExist) return false;
        throw error;
      }
    },
  };
}
