/**
 * The runtime's SendTaskFailure and StopExecution fit Step Functions' caps (error 256, cause 32,768 characters:
 * API_SendTaskFailure.html, API_StopExecution.html) whatever text they carry, against the local endpoint, which
 * refuses a longer one as AWS does (shared/local/sfn/request-rules.ts). Before, a long cause was refused: the
 * wait stayed open until its timeout, the execution ran on.
 */
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import { sfnExecutionStops } from '../../shared/runtime/executions-sfn.ts';
import { byTurn } from '../local/fixtures/fake-handlers.ts';
import { fixtureDefinition } from '../local/fixtures/fixture-definition.ts';
import { type Harness, startHarness } from '../local/fixtures/harness.ts';

/** 40,000 units of outside text with an emoji across the 32,768th unit. */
const LONG = `${'r'.repeat(32_767)}😀${'s'.repeat(7_231)}`;

describe('Runtime failures on Step Functions: error and cause caps', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  const waiting = async (runId: string) => {
    harness = await startHarness(
      fixtureDefinition,
      byTurn({ next: 'await_approval', approvalTimeoutSeconds: 3600 }),
    );
    const executionArn = await harness.startRun(runId, runId);
    const { taskToken } = await harness.fake.approvalRequested(runId);
    return { ...harness, executionArn, taskToken };
  };

  it('sfnTaskTokens.sendFailure cuts a long error and cause to the caps, so the wait is answered', async () => {
    // Prepare
    const { client, sfn, endpoint, executionArn, taskToken } = await waiting('run_fail_caps');

    // Act
    const answer = await sfnTaskTokens(client).sendFailure(taskToken, `E${'e'.repeat(300)}`, LONG);
    const ended = await sfn.waitForExecution(executionArn);

    // Assess
    expect(answer).toBe('sent');
    expect(endpoint.refusals).toEqual([]);
    expect(ended.status).not.toBe('RUNNING');
  });

  it('sfnExecutionStops.stop cuts a long cause to 32,768 units, never inside an emoji', async () => {
    // Prepare
    const { client, endpoint, executionArn } = await waiting('run_stop_caps');

    // Act
    await sfnExecutionStops(client).stop(executionArn, LONG);
    const described = await client.send(new DescribeExecutionCommand({ executionArn }));

    // Assess
    expect(endpoint.refusals).toEqual([]);
    expect(described.status).toBe('ABORTED');
    expect(described.cause).toBe('r'.repeat(32_767));
  });
});
