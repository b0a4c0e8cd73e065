/** ExecutionsPort on Step Functions (AWS, or the local stack's Step Functions endpoint). */
import {
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  type SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { checkExecutionName } from '../runs/execution-name.ts';
import type { ExecutionsPort } from '../runs/ports.ts';

/** The ARN of execution `name` of a state machine (what StartExecution would have returned). */
export const executionArnOf = (stateMachineArn: string, name: string): string =>
  `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;

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
        throw error;
      }
    },
    async stop(executionArn, cause) {
      try {
        await client.send(new StopExecutionCommand({ executionArn, cause, error: 'Cancelled' }));
      } catch (error) {
        if (!(error instanceof ExecutionDoesNotExist)) throw error;
      }
    },
  };
}
