import { afterEach, describe, expect, it } from 'vitest';
import { definitionsUnderTest, synthesizedDefinition } from '../fixtures/definitions.ts';
import { byTurn, type Decision, type Script } from '../fixtures/fake-handlers.ts';
import { type Harness, pointer, startHarness, statesEntered } from '../fixtures/harness.ts';

type Retrier = { ErrorEquals: string[]; MaxAttempts?: number };

/** The attempts the definition allows for `error` on `state` (first try plus MaxAttempts, default 3). */
function attemptsAllowed(definition: object, state: string, error: string): number {
  const states = (definition as { States: Record<string, { Retry?: Retrier[] }> }).States;
  const retrier = states[state]?.Retry?.find((candidate) => candidate.ErrorEquals.includes(error));
  return 1 + (retrier ? (retrier.MaxAttempts ?? 3) : 0);
}

describe.each(definitionsUnderTest)('LocalStepFunctions runs ($label)', (subject) => {
  let harness: Harness | undefined;
  const start = async (script: Script) => {
    harness = await startHarness(subject, script);
    return harness;
  };
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('runs continue → continue → done → Deliver to SUCCEEDED, counting Turn invocations and transitions', async () => {
    // Prepare
    const { sfn, fake, events, startRun } = await start(
      byTurn({ next: 'continue' }, { next: 'continue' }, { next: 'done' }),
    );

    // Act
    const executionArn = await startRun('run_a');
    const result = await sfn.waitForExecution(executionArn);

    // Assess
    expect(result.status).toBe('SUCCEEDED');
    expect(fake.eventsOf('turn')).toEqual([
      pointer('run_a', 0),
      { ...pointer('run_a', 1), segmentStartTurn: 0 },
      { ...pointer('run_a', 2), segmentStartTurn: 0 },
    ]);
    expect(fake.eventsOf('deliver')).toEqual([expect.objectContaining({ runId: 'run_a', turn: 3 })]);
    expect(statesEntered(events, executionArn)).toEqual([
      'Turn',
      'Route',
      'Turn',
      'Route',
      'Turn',
      'Route',
      'Deliver',
    ]);
    // Deliver ends the execution (End: true): no Succeed state after it, one transition fewer.
    expect(sfn.stateTransitions(executionArn)).toBe(7);
    // AWS: 1 start + 3 × 5 Lambda task events + 3 × 2 Choice + 5 Deliver + 1 end.
    expect(sfn.historyEventCount(executionArn)).toBe(28);
  });

  it('retries a handler that throws a retryable error name, per the definition’s Retry', async () => {
    // Prepare
    const { sfn, fake, events, startRun } = await start((p, attempt) =>
      p.turn === 0 && attempt <= 2 ? { throws: 'ModelRateLimitedError' } : { next: 'done' },
    );

    // Act
    const executionArn = await startRun('run_retry');
    const result = await sfn.waitForExecution(executionArn);

    // Assess
    expect(result.status).toBe('SUCCEEDED');
    expect(fake.eventsOf('turn')).toHaveLength(3);
    expect(
      events.filter((event) => event.type === 'StateRetried' && event.stateName === 'Turn'),
    ).toHaveLength(2);
    // Turn, its 2 retries, Route, Deliver (which ends the execution).
    expect(sfn.stateTransitions(executionArn)).toBe(5);
  });

  it('gives Turn `$$.State.RetryCount` as AWS does: 0 on each entry, +1 per retry, and RedriveCount 0', async () => {
    // Prepare: turn 0 fails twice then continues; turn 1 (a new entry into Turn) fails once then is done.
    const { sfn, fake, startRun } = await start((p, attempt) =>
      (p.turn === 0 && attempt <= 2) || (p.turn === 1 && attempt === 1)
        ? { throws: 'ModelRateLimitedError' }
        : p.turn === 0
          ? { next: 'continue' }
          : { next: 'done' },
    );

    // Act
    const executionArn = await startRun('run_attempts');
    const result = await sfn.waitForExecution(executionArn);

    // Assess
    expect(result.status).toBe('SUCCEEDED');
    const seen = (retryCount: number) => ({ retryCount, redriveCount: 0, executionId: executionArn });
    expect(fake.reportedAttempts.map(({ turn, attempt }) => ({ turn, attempt }))).toEqual([
      { turn: 0, attempt: seen(0) },
      { turn: 0, attempt: seen(1) },
      { turn: 0, attempt: seen(2) },
      { turn: 1, attempt: seen(0) },
      { turn: 1, attempt: seen(1) },
    ]);
  });

  it('gives every Turn of the execution the input it was started with (`$$.Execution.Input`: a first run’s head hint)', async () => {
    // Prepare
    const { sfn, fake, startRun } = await start(byTurn({ next: 'continue' }, { next: 'done' }));
    const headHint = { owner: 'team-a', workflowId: 'wf_a' };

    // Act
    const executionArn = await startRun('run_hint', undefined, { headHint });
    const result = await sfn.waitForExecution(executionArn);

    // Assess: the pointer is the state's; the execution's input, hint included, comes with each Turn.
    expect(result.status).toBe('SUCCEEDED');
    const started = { ...pointer('run_hint', 0), headHint };
    expect(fake.reportedExecutions).toEqual([
      { runId: 'run_hint', turn: 0, execution: started },
      { runId: 'run_hint', turn: 1, execution: started },
    ]);
    expect(fake.eventsOf('turn')[1]).toEqual({ ...pointer('run_hint', 1), segmentStartTurn: 0 });
  });

  it('gives each Turn the state it was entered with (`$`): the previous Turn’s outcome, with its read hint', async () => {
    // Prepare: turn 0 continues naming what turn 1 reads; turn 1 parks; the turn after the expiry ends.
    const readHint = { owner: 'team-a', workflowId: 'wf_a', messageCount: 3 };
    const { sfn, fake, startRun } = await start(
      byTurn(
        { next: 'continue', readHint },
        { next: 'await_approval', approvalTimeoutSeconds: 1 },
        { next: 'done' },
      ),
    );

    // Act
    const executionArn = await startRun('run_state');
    const result = await sfn.waitForExecution(executionArn);

    // Assess: the first Turn gets the execution's input; the next the outcome that routed to it, whole; the
    // Turn after an expired wait the parking outcome (RequestApproval and Expire discard their results).
    expect(result.status).toBe('SUCCEEDED');
    expect(fake.reportedStates).toEqual([
      { runId: 'run_state', turn: 0, state: pointer('run_state', 0) },
      {
        runId: 'run_state',
        turn: 1,
        state: { runId: 'run_state', turn: 1, segmentStartTurn: 0, next: 'continue', readHint },
      },
      {
        runId: 'run_state',
        turn: 2,
        state: {
          runId: 'run_state',
          turn: 2,
          segmentStartTurn: 0,
          next: 'await_approval',
          approvalTimeoutSeconds: 1,
        },
      },
    ]);
  });

  it('gives up after the definition’s MaxAttempts and routes to MarkFailed', async () => {
    // Prepare
    const { sfn, fake, startRun } = await start(() => ({ throws: 'ModelOverloadedError' }));
    const expectedAttempts = attemptsAllowed(subject.definition, 'Turn', 'ModelOverloadedError');

    // Act
    const result = await sfn.waitForExecution(await startRun('run_overloaded'));

    // Assess
    expect(expectedAttempts).toBeGreaterThan(1);
    expect(fake.eventsOf('turn')).toHaveLength(expectedAttempts);
    expect(fake.eventsOf('mark-failed')).toEqual([
      expect.objectContaining({
        runId: 'run_overloaded',
        error: expect.objectContaining({ Error: 'ModelOverloadedError' }),
      }),
    ]);
    expect(result.status).toBe('FAILED');
  });

  it('sends a non-retryable handler error to MarkFailed with the Lambda error as Cause', async () => {
    // Prepare
    const { sfn, fake, events, startRun } = await start(() => ({ throws: 'TypeError' }));

    // Act
    const executionArn = await startRun('run_bug');
    const result = await sfn.waitForExecution(executionArn);

    // Assess
    expect(fake.eventsOf('turn')).toHaveLength(1);
    const [marked] = fake.eventsOf('mark-failed') as Array<{ error: { Error: string; Cause: string } }>;
    expect(marked?.error.Error).toBe('TypeError');
    expect(JSON.parse(marked?.error.Cause ?? '{}')).toMatchObject({
      errorType: 'TypeError',
      errorMessage: 'TypeError (fake)',
    });
    expect(result.status).toBe('FAILED');
    expect(statesEntered(events, executionArn).slice(-2)).toEqual(['MarkFailed', 'Failed']);
  });

  it('routes a `failed` decision that carries its error to MarkFailed', async () => {
    // Prepare
    const error = { Error: 'BudgetExceeded', Cause: 'spent 10 of 10' };
    const { sfn, fake, startRun } = await start(byTurn({ next: 'failed', error }));

    // Act
    const result = await sfn.waitForExecution(await startRun('run_failed'));

    // Assess
    expect(fake.eventsOf('mark-failed')).toEqual([expect.objectContaining({ runId: 'run_failed', error })]);
    expect(result.status).toBe('FAILED');
  });

  it('continues as new: a fresh execution picks up the pointer with segmentStartTurn = turn', async () => {
    // Prepare
    const { sfn, fake, events, startRun } = await start(
      byTurn({ next: 'continue' }, { next: 'continue_as_new' }, { next: 'done' }),
    );

    // Act
    const firstArn = await startRun('run_long');
    const first = await sfn.waitForExecution(firstArn);
    const [child] = (await sfn.listExecutions()).filter((execution) => execution.executionArn !== firstArn);
    const second = await sfn.waitForExecution(child?.executionArn ?? 'missing');

    // Assess
    expect(first.status).toBe('SUCCEEDED');
    // ContinueAsNew ends the first execution itself (End: true).
    expect(statesEntered(events, firstArn).at(-1)).toBe('ContinueAsNew');
    expect(JSON.parse(second.input)).toMatchObject({ runId: 'run_long', turn: 2, segmentStartTurn: 2 });
    expect(fake.eventsOf('turn').at(-1)).toEqual(pointer('run_long', 2));
    expect(second.status).toBe('SUCCEEDED');
    expect(fake.eventsOf('deliver')).toHaveLength(1);
  });
});

describe('LocalStepFunctions on the synthesized definition', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it.each([
    ['a `failed` decision without `error`', { next: 'failed' } as const],
    [
      'an `await_approval` without `approvalTimeoutSeconds`',
      { next: 'await_approval' } as unknown as Decision,
    ],
  ])('routes %s to MarkFailed instead of an uncatchable States.Runtime', async (_case, decision) => {
    // Prepare
    harness = await startHarness(synthesizedDefinition, byTurn(decision));

    // Act
    const result = await harness.sfn.waitForExecution(await harness.startRun('run_guard'));

    // Assess
    expect(harness.fake.eventsOf('mark-failed')).toEqual([expect.objectContaining({ runId: 'run_guard' })]);
    expect(result).toMatchObject({ status: 'FAILED', error: 'RunFailed' });
  });

  it.each([
    ['crash', 'Lambda.Unknown'],
    ['timeout', 'Sandbox.Timedout'],
  ] as const)(
    'reports a Turn %s as %s and retries it per the definition, then goes on',
    async (fault, error) => {
      // Prepare: the first two invocations of turn 0 never return.
      harness = await startHarness(synthesizedDefinition, (p, attempt) =>
        p.turn === 0 && attempt <= 2 ? { fault } : { next: 'done' },
      );

      // Act
      const executionArn = await harness.startRun(`run_${fault}`);
      const result = await harness.sfn.waitForExecution(executionArn);

      // Assess
      const failed = harness.events.filter(
        (event) => event.type === 'StateFailed' && event.stateName === 'Turn',
      );
      expect(failed.map((event) => event.error)).toEqual([error, error]);
      expect(JSON.parse(failed[0]?.cause ?? '{}')).toMatchObject({ errorType: error });
      expect(harness.fake.eventsOf('turn')).toEqual([
        pointer(`run_${fault}`, 0),
        pointer(`run_${fault}`, 0),
        pointer(`run_${fault}`, 0),
      ]);
      expect(harness.fake.eventsOf('mark-failed')).toEqual([]);
      expect(result.status).toBe('SUCCEEDED');
    },
  );

  it('gives up on a Turn that always crashes after the bounded retries, and records the run failed', async () => {
    // Prepare
    harness = await startHarness(synthesizedDefinition, () => ({ fault: 'crash' }));
    const allowed = attemptsAllowed(synthesizedDefinition.definition, 'Turn', 'Lambda.Unknown');

    // Act
    const result = await harness.sfn.waitForExecution(await harness.startRun('run_always_crashes'));

    // Assess
    expect(allowed).toBe(3);
    expect(harness.fake.eventsOf('turn')).toHaveLength(allowed);
    expect(harness.fake.eventsOf('mark-failed')).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ Error: 'Lambda.Unknown' }) }),
    ]);
    expect(result).toMatchObject({ status: 'FAILED', error: 'RunFailed' });
  });
});
