import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  InvalidExecutionInput,
  InvalidName,
  ListExecutionsCommand,
  StartExecutionCommand,
  StateMachineDoesNotExist,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it } from 'vitest';
import { byTurn } from '../fixtures/fake-handlers.ts';
import { fixtureDefinition } from '../fixtures/fixture-definition.ts';
import { type Harness, pointer, startHarness } from '../fixtures/harness.ts';

const waitForever = byTurn({ next: 'await_approval', approvalTimeoutSeconds: 3600 });

describe('startLocalSfnEndpoint', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('starts idempotently for the same name and input while running, and refuses a different input', async () => {
    // Prepare
    harness = await startHarness(fixtureDefinition, waitForever);
    const { client, sfn } = harness;
    const request = {
      stateMachineArn: sfn.stateMachineArn,
      name: 'run_same',
      input: JSON.stringify(pointer('run_same')),
    };

    // Act
    const first = await client.send(new StartExecutionCommand(request));
    const again = await client.send(new StartExecutionCommand(request));
    const different = client.send(
      new StartExecutionCommand({ ...request, input: JSON.stringify(pointer('other')) }),
    );

    // Assess
    expect(again.executionArn).toBe(first.executionArn);
    expect(again.startDate?.getTime()).toBe(first.startDate?.getTime());
    await expect(different).rejects.toBeInstanceOf(ExecutionAlreadyExists);
  });

  it('refuses a reused name once the execution has ended, as AWS does', async () => {
    // Prepare
    harness = await startHarness(fixtureDefinition, byTurn({ next: 'done' }));
    const { client, sfn } = harness;
    const request = {
      stateMachineArn: sfn.stateMachineArn,
      name: 'run_once',
      input: JSON.stringify(pointer('run_once')),
    };
    const { executionArn } = await client.send(new StartExecutionCommand(request));
    await sfn.waitForExecution(executionArn ?? '');

    // Act
    const again = client.send(new StartExecutionCommand(request));

    // Assess
    await expect(again).rejects.toBeInstanceOf(ExecutionAlreadyExists);
  });

  it.each([
    [
      'an unknown execution',
      new DescribeExecutionCommand({
        executionArn: 'arn:aws:states:local:000000000000:execution:local:nope',
      }),
      ExecutionDoesNotExist,
    ],
    [
      'another state machine',
      new StartExecutionCommand({ stateMachineArn: 'arn:aws:states:local:000000000000:stateMachine:other' }),
      StateMachineDoesNotExist,
    ],
  ])('answers typed SDK exceptions for %s', async (_case, command, exception) => {
    // Prepare
    harness = await startHarness(fixtureDefinition, waitForever);

    // Act
    const sent = harness.client.send(command as DescribeExecutionCommand);

    // Assess
    await expect(sent).rejects.toBeInstanceOf(exception);
  });

  it.each([
    ['a name with a space', { name: 'run 1' }, InvalidName],
    ['an input that is not JSON', { input: '{not json' }, InvalidExecutionInput],
  ])('refuses %s', async (_case, fields, exception) => {
    // Prepare
    harness = await startHarness(fixtureDefinition, waitForever);

    // Act
    const sent = harness.client.send(
      new StartExecutionCommand({ stateMachineArn: harness.sfn.stateMachineArn, ...fields }),
    );

    // Assess
    await expect(sent).rejects.toBeInstanceOf(exception);
  });

  it('lists executions by status and stops one with its error and cause', async () => {
    // Prepare
    harness = await startHarness(fixtureDefinition, waitForever);
    const { client, sfn, fake, startRun } = harness;
    const [keep, stop] = await Promise.all([
      startRun('run_keep', 'run_keep'),
      startRun('run_stop', 'run_stop'),
    ]);
    await Promise.all([fake.approvalRequested('run_keep'), fake.approvalRequested('run_stop')]);

    // Act
    const stopped = await client.send(
      new StopExecutionCommand({ executionArn: stop, error: 'Cancelled', cause: 'test' }),
    );
    const running = await client.send(
      new ListExecutionsCommand({ stateMachineArn: sfn.stateMachineArn, statusFilter: 'RUNNING' }),
    );
    const described = await client.send(new DescribeExecutionCommand({ executionArn: stop }));

    // Assess
    expect(stopped.stopDate).toBeInstanceOf(Date);
    expect(running.executions?.map((execution) => execution.executionArn)).toEqual([keep]);
    expect(described).toMatchObject({
      status: 'ABORTED',
      error: 'Cancelled',
      cause: 'test',
      name: 'run_stop',
    });
    expect(JSON.parse(described.input ?? '')).toEqual(pointer('run_stop'));
  });

  it('answers an unsupported operation with an AWS JSON error', async () => {
    // Prepare
    harness = await startHarness(fixtureDefinition, waitForever);

    // Act
    const response = await fetch(harness.endpoint.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amz-target': 'AWSStepFunctions.DeleteStateMachine',
      },
      body: '{}',
    });

    // Assess
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ __type: 'UnknownOperationException' });
  });
});
