import { afterEach, describe, expect, it } from 'vitest';
import { type Handler, LocalStepFunctions } from '../../../shared/local/sfn/index.ts';
import { FixedClock } from '../../support/store.ts';
import { byTurn, fakeHandlers, namedError, type Script } from '../fixtures/fake-handlers.ts';
import { fixtureDefinition } from '../fixtures/fixture-definition.ts';
import { pointer } from '../fixtures/harness.ts';

const FN = 'arn:aws:lambda:local:000000000000:function:';
const CALLBACK = 'arn:aws:states:::lambda:invoke.waitForTaskToken';
const open: LocalStepFunctions[] = [];

function fixtureSfn(script: Script, retryIntervalOverrides: Record<string, number> = {}) {
  const fake = fakeHandlers(script);
  const sfn = new LocalStepFunctions({
    ...fixtureDefinition,
    handlers: fake.handlers,
    retryIntervalOverrides,
  });
  open.push(sfn);
  return { sfn, fake };
}

function singleTask(state: Record<string, unknown>, handler: Handler, extra: Record<string, unknown> = {}) {
  const sfn = new LocalStepFunctions({
    definition: { ...extra, StartAt: 'T', States: { T: { Type: 'Task', ...state, End: true } } },
    functionByState: { T: 'h' },
    handlers: { h: handler },
  });
  open.push(sfn);
  return sfn;
}

const start = async (sfn: LocalStepFunctions, input: unknown) =>
  (await sfn.startExecution({ input: JSON.stringify(input) })).executionArn;

describe('LocalStepFunctions', () => {
  afterEach(async () => {
    await Promise.all(open.splice(0).map((sfn) => sfn.close()));
  });

  it('fails with States.Runtime when a Parameters path selects nothing (the doc’s MarkFailed `error.$` on the `failed` route)', async () => {
    // Prepare
    const { sfn, fake } = fixtureSfn(byTurn({ next: 'failed' }));

    // Act
    const result = await sfn.waitForExecution(await start(sfn, pointer('run_noerror')));

    // Assess
    expect(result).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect(result.cause).toContain('$.error');
    expect(fake.eventsOf('mark-failed')).toEqual([]);
  });

  it('fails with States.Runtime when TimeoutSecondsPath selects no positive integer', async () => {
    // Prepare
    const { sfn, fake } = fixtureSfn(byTurn({ next: 'await_approval', approvalTimeoutSeconds: 0 }));

    // Act
    const result = await sfn.waitForExecution(await start(sfn, pointer('run_zero')));

    // Assess
    expect(result).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
    expect(fake.eventsOf('request-approval')).toEqual([]);
  });

  it('invokes no handler after a stop during a retry backoff', async () => {
    // Prepare
    const { sfn, fake } = fixtureSfn(() => ({ throws: 'ModelServerError' }), { Turn: 150 });
    const executionArn = await start(sfn, pointer('run_backoff'));
    await new Promise((resolve) => setTimeout(resolve, 50));

    // Act
    await sfn.stopExecution(executionArn);
    await new Promise((resolve) => setTimeout(resolve, 300));

    // Assess
    expect(fake.eventsOf('turn')).toHaveLength(1);
    expect((await sfn.describeExecution(executionArn)).status).toBe('ABORTED');
  });

  it('close() aborts running executions, closes their tokens and refuses new ones', async () => {
    // Prepare
    const { sfn, fake } = fixtureSfn(byTurn({ next: 'await_approval', approvalTimeoutSeconds: 3600 }));
    const executionArn = await start(sfn, pointer('run_close'));
    const { taskToken } = await fake.approvalRequested('run_close');

    // Act
    await sfn.close();

    // Assess
    expect((await sfn.describeExecution(executionArn)).status).toBe('ABORTED');
    await expect(sfn.sendTaskSuccess(taskToken, '{}')).rejects.toMatchObject({ name: 'TaskTimedOut' });
    await expect(sfn.startExecution({ input: '{}' })).rejects.toMatchObject({ name: 'LocalSfnClosedError' });
  });

  it('close() returns only after a task handler still running has finished (it shares the process with the store)', async () => {
    // Prepare: a handler that is mid-invocation when the stack stops.
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const order: string[] = [];
    const sfn = singleTask(
      {
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: `${FN}h`, 'Payload.$': '$' },
      },
      async () => {
        entered();
        await held;
        order.push('handler finished');
        return {};
      },
    );
    await start(sfn, {});
    await inside;

    // Act
    const closed = sfn.close().then(() => order.push('closed'));
    await new Promise((resolve) => setImmediate(resolve));
    order.push('released');
    release();
    await closed;

    // Assess
    expect(order).toEqual(['released', 'handler finished', 'closed']);
  });

  it('resolves $$.Execution.StartTime as AWS does: the execution’s startDate, one value inside a Map too', async () => {
    // Prepare: a Task before a Map and one inside it (the library would give each iteration its own start, at
    // the real time it ran); the local clock dates executions.
    // https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html
    const clock = new FixedClock('2026-11-30T07:00:00.000Z');
    const seen: unknown[] = [];
    const record = async (event: unknown) => {
      seen.push(event);
      return {};
    };
    const sfn = new LocalStepFunctions({
      definition: {
        StartAt: 'Before',
        States: {
          Before: {
            Type: 'Task',
            Resource: `${FN}h`,
            Parameters: { 'startTime.$': '$$.Execution.StartTime' },
            ResultPath: null,
            Next: 'Each',
          },
          Each: {
            Type: 'Map',
            ItemsPath: '$.items',
            ItemProcessor: {
              StartAt: 'Inside',
              States: {
                Inside: {
                  Type: 'Task',
                  Resource: `${FN}i`,
                  Parameters: {
                    'startTime.$': '$$.Execution.StartTime',
                    'formatted.$': "States.Format('at {}', $$.Execution.StartTime)",
                  },
                  End: true,
                },
              },
            },
            End: true,
          },
        },
      },
      functionByState: { Before: 'h', Inside: 'i' },
      handlers: { h: record, i: record },
      clock,
    });
    open.push(sfn);

    // Act: two executions, the second a minute later.
    const first = await start(sfn, { items: [1, 2] });
    await sfn.waitForExecution(first);
    clock.advance(60_000);
    const second = await start(sfn, { items: [1] });
    await sfn.waitForExecution(second);

    // Assess
    const at = async (arn: string) => (await sfn.describeExecution(arn)).startDate.toISOString();
    expect(await at(first)).toBe('2026-11-30T07:00:00.000Z');
    const inside = (iso: string) => ({ startTime: iso, formatted: `at ${iso}` });
    expect(seen).toEqual([
      { startTime: await at(first) },
      inside(await at(first)),
      inside(await at(first)),
      { startTime: await at(second) },
      inside(await at(second)),
    ]);
    expect(await at(second)).toBe('2026-11-30T07:01:00.000Z');
  });

  it('wraps a handler result as lambda:invoke does, so OutputPath $.Payload selects it', async () => {
    // Prepare
    const sfn = singleTask(
      {
        Resource: 'arn:aws:states:::lambda:invoke',
        Parameters: { FunctionName: `${FN}h`, 'Payload.$': '$' },
        OutputPath: '$.Payload',
      },
      async (event) => ({ echoed: event }),
    );

    // Act
    const result = await sfn.waitForExecution(await start(sfn, { a: 1 }));

    // Assess
    expect(JSON.parse(result.output ?? 'null')).toEqual({ echoed: { a: 1 } });
  });

  it('fails a result over 256 KiB with States.DataLimitExceeded', async () => {
    // Prepare
    const sfn = singleTask({ Resource: `${FN}h` }, async () => ({ transcript: 'x'.repeat(300_000) }));

    // Act
    const result = await sfn.waitForExecution(await start(sfn, {}));

    // Assess
    expect(result).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded' });
  });

  it('times out a whole execution (definition TimeoutSeconds) and closes its waiting token', async () => {
    // Prepare
    let token = '';
    const sfn = singleTask(
      {
        Resource: CALLBACK,
        Parameters: { FunctionName: `${FN}h`, Payload: { 'taskToken.$': '$$.Task.Token' } },
      },
      async (event) => {
        token = (event as { taskToken: string }).taskToken;
      },
      { TimeoutSeconds: 1 },
    );

    // Act
    const result = await sfn.waitForExecution(await start(sfn, {}));

    // Assess
    expect(result.status).toBe('TIMED_OUT');
    await expect(sfn.sendTaskSuccess(token, '{}')).rejects.toMatchObject({ name: 'TaskTimedOut' });
  });

  it('reports the Fail state’s Error and Cause as the execution’s error and cause', async () => {
    // Prepare
    const { sfn } = fixtureSfn(() => ({ throws: 'TypeError' }));

    // Act
    const result = await sfn.waitForExecution(await start(sfn, pointer('run_fail')));

    // Assess
    expect(result).toMatchObject({
      status: 'FAILED',
      error: 'RunFailed',
      cause: expect.stringContaining('stop reason'),
    });
  });

  it('reports a handler error without a name as errorType Error', async () => {
    // Prepare
    const sfn = singleTask({ Resource: `${FN}h` }, async () => {
      throw namedError('');
    });

    // Act
    const result = await sfn.waitForExecution(await start(sfn, {}));

    // Assess
    expect(result).toMatchObject({ status: 'FAILED', error: 'Error' });
  });
});
