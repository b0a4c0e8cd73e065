/**
 * Execution names as AWS takes them: 1–80 characters of A–Z, a–z, 0–9, - and _
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html). The local Step
 * Functions stand-in took longer names; AWS answers ValidationException. A graph step retry was named
 * `<runId>-retry-<stepId>-<attempt>`: with a 40-character step id that is 86 characters.
 */
import type { SFNClient } from '@aws-sdk/client-sfn';
import { describe, expect, it } from 'vitest';
import { derivedExecutionName, isExecutionName } from '../../shared/runs/execution-name.ts';
import { sfnExecutions } from '../../shared/runtime/executions-sfn.ts';

const RUN_ID = `run_${'0123456789abcdef'.repeat(2)}`;
const LONGEST_STEP = `s${'x'.repeat(39)}`;

function recordingClient() {
  const sent: { name?: string }[] = [];
  const client = {
    send: async (command: { input: { name?: string } }) => {
      sent.push(command.input);
      return { executionArn: `arn:aws:states:eu-west-1:123456789012:execution:m:${command.input.name}` };
    },
  } as unknown as Pick<SFNClient, 'send'>;
  return { client, sent };
}

describe('Function: derivedExecutionName', () => {
  it('keeps a short name readable', () => {
    expect(derivedExecutionName(RUN_ID, 'retry', 'refund', 2)).toBe(`${RUN_ID}-retry-refund-2`);
  });

  it.each([1, 2, 99, 1000])('fits the longest step id into 80 characters (attempt %i)', (attempt) => {
    const name = derivedExecutionName(RUN_ID, 'retry', LONGEST_STEP, attempt);
    expect(name.length).toBeLessThanOrEqual(80);
    expect(isExecutionName(name)).toBe(true);
    expect(name.startsWith(`${RUN_ID}-retry-`)).toBe(true);
  });

  it('is deterministic (the start is idempotent by name) and tells attempts and steps apart', () => {
    const name = (step: string, attempt: number) => derivedExecutionName(RUN_ID, 'retry', step, attempt);
    expect(name(LONGEST_STEP, 3)).toBe(name(LONGEST_STEP, 3));
    expect(name(LONGEST_STEP, 3)).not.toBe(name(LONGEST_STEP, 4));
    expect(name(LONGEST_STEP, 3)).not.toBe(name(`${LONGEST_STEP.slice(0, 39)}y`, 3));
  });
});

describe('Function: sfnExecutions, execution names', () => {
  const machine = 'arn:aws:states:eu-west-1:123456789012:stateMachine:m';

  it.each([
    ['81 characters', 'a'.repeat(81)],
    ['the old retry name with a 40-character step id', `${RUN_ID}-retry-${LONGEST_STEP}-2`],
    ['a colon', 'run_abc:1'],
    ['white space', 'run abc'],
    ['nothing', ''],
  ])('refuses %s before calling Step Functions, on every machine', async (_name, name) => {
    const { client, sent } = recordingClient();
    const executions = sfnExecutions(client, machine, machine, machine);
    await expect(executions.start(name, { runId: RUN_ID, turn: 0, segmentStartTurn: 0 })).rejects.toThrow(
      /execution name/,
    );
    await expect(executions.graph!.start(name, { runId: RUN_ID })).rejects.toThrow(/execution name/);
    await expect(executions.external!.start(name, { runId: RUN_ID })).rejects.toThrow(/execution name/);
    expect(sent).toEqual([]);
  });

  it('starts a valid name as given', async () => {
    const { client, sent } = recordingClient();
    const name = derivedExecutionName(RUN_ID, 'retry', LONGEST_STEP, 2);
    await sfnExecutions(client, machine, machine).graph!.start(name, { runId: RUN_ID });
    expect(sent.map((input) => input.name)).toEqual([name]);
  });
});
