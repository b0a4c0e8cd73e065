import {
  DescribeExecutionCommand,
  InvalidToken,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  StopExecutionCommand,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import { definitionsUnderTest } from '../fixtures/definitions.ts';
import { byTurn, type Decision, type Script } from '../fixtures/fake-handlers.ts';
import { type Harness, startHarness, statesEntered } from '../fixtures/harness.ts';

const awaitApproval = (approvalTimeoutSeconds: number): Decision => ({
  next: 'await_approval',
  approvalTimeoutSeconds,
});

describe.each(definitionsUnderTest)('Approvals on task tokens ($label)', (subject) => {
  let harness: Harness | undefined;
  const start = async (script: Script) => {
    harness = await startHarness(subject, script);
    return harness;
  };
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('waits on RequestApproval until SendTaskSuccess through the AWS SDK, then runs Turn again', async () => {
    // Prepare
    const { sfn, fake, client, startRun } = await start(byTurn(awaitApproval(3600), { next: 'done' }));
    const executionArn = await startRun('run_approve');
    const request = await fake.approvalRequested('run_approve');
    const waiting = await client.send(new DescribeExecutionCommand({ executionArn }));

    // Act
    await client.send(
      new SendTaskSuccessCommand({ taskToken: request.taskToken, output: '{"approved":true}' }),
    );
    const result = await sfn.waitForExecution(executionArn);

    // Assess
    expect(request).toMatchObject({
      runId: 'run_approve',
      turn: 1,
      taskToken: expect.stringMatching(/^lsfn1\./),
    });
    expect(waiting.status).toBe('RUNNING');
    expect(waiting.startDate).toBeInstanceOf(Date);
    expect(fake.eventsOf('turn').map((event) => event.turn)).toEqual([0, 1]);
    expect(result.status).toBe('SUCCEEDED');
  });

  it('answers TaskTimedOut to a second SendTaskSuccess on an answered token', async () => {
    // Prepare
    const { sfn, fake, client, startRun } = await start(byTurn(awaitApproval(3600), { next: 'done' }));
    const executionArn = await startRun('run_twice');
    const { taskToken } = await fake.approvalRequested('run_twice');
    await client.send(new SendTaskSuccessCommand({ taskToken, output: '{}' }));

    // Act
    const second = client.send(new SendTaskSuccessCommand({ taskToken, output: '{}' }));

    // Assess
    await expect(second).rejects.toBeInstanceOf(TaskTimedOut);
    expect((await sfn.waitForExecution(executionArn)).status).toBe('SUCCEEDED');
  });

  it('expires a wait without decision: Expire → Turn → done; a late SendTaskSuccess gets TaskTimedOut', async () => {
    // Prepare
    const { sfn, fake, client, events, startRun } = await start(byTurn(awaitApproval(1), { next: 'done' }));
    const startedAt = Date.now();

    // Act
    const executionArn = await startRun('run_expire');
    const { taskToken } = await fake.approvalRequested('run_expire');
    const result = await sfn.waitForExecution(executionArn);
    const late = client.send(new SendTaskSuccessCommand({ taskToken, output: '{"approved":true}' }));

    // Assess
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(950);
    expect(result.status).toBe('SUCCEEDED');
    expect(fake.eventsOf('expire')).toEqual([expect.objectContaining({ runId: 'run_expire', turn: 1 })]);
    expect(statesEntered(events, executionArn)).toEqual([
      'Turn',
      'Route',
      'RequestApproval',
      'Expire',
      'Turn',
      'Route',
      'Deliver',
    ]);
    await expect(late).rejects.toBeInstanceOf(TaskTimedOut);
  });

  it('routes SendTaskFailure per the definition: Catch States.ALL → MarkFailed with the given error', async () => {
    // Prepare
    const { sfn, fake, client, startRun } = await start(byTurn(awaitApproval(3600)));
    const executionArn = await startRun('run_reject');
    const { taskToken } = await fake.approvalRequested('run_reject');

    // Act
    await client.send(
      new SendTaskFailureCommand({ taskToken, error: 'ApprovalRejected', cause: 'rejected by ops' }),
    );
    const result = await sfn.waitForExecution(executionArn);

    // Assess
    expect(fake.eventsOf('mark-failed')).toEqual([
      expect.objectContaining({
        runId: 'run_reject',
        error: { Error: 'ApprovalRejected', Cause: 'rejected by ops' },
      }),
    ]);
    expect(fake.eventsOf('turn')).toHaveLength(1);
    expect(result.status).toBe('FAILED');
  });

  it('gives concurrent executions their own tokens; answering one leaves the other waiting', async () => {
    // Prepare
    const { sfn, fake, client, startRun } = await start(byTurn(awaitApproval(3600), { next: 'done' }));
    const [arnA, arnB] = await Promise.all([startRun('run_a'), startRun('run_b')]);
    const [requestA, requestB] = await Promise.all([
      fake.approvalRequested('run_a'),
      fake.approvalRequested('run_b'),
    ]);

    // Act
    await client.send(new SendTaskSuccessCommand({ taskToken: requestB.taskToken, output: '{}' }));
    const resultB = await sfn.waitForExecution(arnB);
    const stillWaitingA = await sfn.describeExecution(arnA);

    // Assess
    expect(requestA.taskToken).not.toBe(requestB.taskToken);
    expect(resultB.status).toBe('SUCCEEDED');
    expect(stillWaitingA.status).toBe('RUNNING');
    expect(sfn.openTaskTokens(arnA).map((wait) => wait.token)).toEqual([requestA.taskToken]);
    await client.send(new SendTaskSuccessCommand({ taskToken: requestA.taskToken, output: '{}' }));
    expect((await sfn.waitForExecution(arnA)).status).toBe('SUCCEEDED');
  });

  it('mints a new token for each wait of the same execution', async () => {
    // Prepare
    const { sfn, fake, startRun } = await start(
      byTurn(awaitApproval(3600), awaitApproval(3600), { next: 'done' }),
    );
    const executionArn = await startRun('run_two_waits');

    // Act
    const first = await fake.approvalRequested('run_two_waits', 0);
    await sfn.sendTaskSuccess(first.taskToken, '{}');
    const second = await fake.approvalRequested('run_two_waits', 1);
    await sfn.sendTaskSuccess(second.taskToken, '{}');

    // Assess
    expect(second.taskToken).not.toBe(first.taskToken);
    expect((await sfn.waitForExecution(executionArn)).status).toBe('SUCCEEDED');
  });

  it('answers InvalidToken to an unknown token, through the SDK and in process', async () => {
    // Prepare
    const { sfn, client } = await start(byTurn({ next: 'done' }));

    // Act
    const [success, heartbeat, inProcess] = await Promise.allSettled([
      client.send(new SendTaskSuccessCommand({ taskToken: 'not-a-token', output: '{}' })),
      client.send(new SendTaskHeartbeatCommand({ taskToken: 'not-a-token' })),
      sfn.sendTaskFailure('not-a-token', 'X', 'y'),
    ]);

    // Assess
    expect(success).toMatchObject({ status: 'rejected', reason: expect.any(InvalidToken) });
    expect(heartbeat).toMatchObject({ status: 'rejected', reason: expect.any(InvalidToken) });
    expect(inProcess).toMatchObject({
      status: 'rejected',
      reason: expect.objectContaining({ name: 'InvalidToken' }),
    });
  });

  it('closes the wait of a stopped execution: ABORTED, and its token answers TaskTimedOut', async () => {
    // Prepare
    const { sfn, fake, client, startRun } = await start(byTurn(awaitApproval(3600), { next: 'done' }));
    const executionArn = await startRun('run_stop');
    const { taskToken } = await fake.approvalRequested('run_stop');
    await client.send(new SendTaskHeartbeatCommand({ taskToken }));

    // Act
    await client.send(new StopExecutionCommand({ executionArn, error: 'Cancelled', cause: 'by user' }));
    const result = await sfn.waitForExecution(executionArn);
    const late = client.send(new SendTaskSuccessCommand({ taskToken, output: '{}' }));

    // Assess
    expect(result).toMatchObject({ status: 'ABORTED', error: 'Cancelled', cause: 'by user' });
    expect(result.stopDate).toBeInstanceOf(Date);
    await expect(late).rejects.toBeInstanceOf(TaskTimedOut);
    expect(fake.eventsOf('turn')).toHaveLength(1);
  });
});
