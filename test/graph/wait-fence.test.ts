/**
 * Late attempts of a task-token wait, against DynamoDB Local. Step Functions retries a callback task whose
 * invocation failed (a crash, or an Invoke that timed out client-side while the function still runs) with a
 * fresh task token; the first invocation may then store its token after the retry stored the live one. A
 * stored token of a later attempt (a greater `$$.State.RetryCount`, `$$.Execution.RedriveCount` or entry) is
 * never replaced (shared/graph-run/wait-fence.ts): the stale token loses, the live one stays, and the run
 * resumes (the step's wait is answered) through it.
 */
import { describe, expect, it } from 'vitest';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import { unconfiguredHumanTasks } from '../../shared/graph-run/human-task-port.ts';
import {
  type GraphOperationsDeps,
  pauseGraphRun,
  resumeGraphRun,
} from '../../shared/graph-run/operations.ts';
import { awaitResume, childRunIdFor, startStepWait } from '../../shared/graph-run/wait.ts';
import { isLaterWait, waitFence } from '../../shared/graph-run/wait-fence.ts';
import type { ExecutionsPort } from '../../shared/runs/ports.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { apiHarness } from '../api/helpers.ts';
import { aliceRunOf } from '../support/graph-fixtures.ts';
import { FixedClock, randomIds, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { refundGraph } from './fixtures.ts';

const ACTOR = 'owner:test';

function operations(store: DynamoStore, answered: string[]): GraphOperationsDeps {
  return {
    store,
    clock: new FixedClock(),
    executions: { start: async () => ({ executionArn: 'unused' }), stop: async () => {} },
    taskTokens: {
      sendSuccess: async (token: string) => {
        answered.push(token);
      },
    },
  } as unknown as GraphOperationsDeps;
}

/** A paused graph run and the revision `Advance` decided `paused` at (the entry of its AwaitResume). */
async function pausedRun(store: DynamoStore) {
  const { version } = await seedWorkflow(store, refundGraph());
  const run = await seedRun(store, version);
  const paused = await pauseGraphRun(operations(store, []), {
    owner: run.owner,
    runId: run.runId,
    actor: ACTOR,
  });
  return { run, rev: paused!.rev };
}

/** `$$.Execution.StartTime` of two executions of one run: the second started by an operator's step retry. */
const EXECUTION_1 = '2026-11-30T07:00:00.000Z';
const EXECUTION_2 = '2026-11-30T07:42:10.5Z';

describe('Function: waitFence', () => {
  it.each([
    ['a retry of the same entry', { retryCount: 1 }, { retryCount: 0 }],
    ['a later entry', { entry: 2 }, { entry: 1, retryCount: 9 }],
    ['a redrive', { redriveCount: 1 }, { retryCount: 9 }],
    [
      'a later execution, its counts back at 0',
      { startTime: EXECUTION_2 },
      { startTime: EXECUTION_1, redriveCount: 3, retryCount: 9 },
    ],
    [
      'an execution of this definition beside one of the definition before it (no start time)',
      { startTime: EXECUTION_1 },
      { startTime: undefined, entry: 99_999_999_999_999, redriveCount: 999_999, retryCount: 999_999 },
    ],
  ])('orders %s after the earlier wait', (_case, later, earlier) => {
    // Prepare
    const fence = (attempt: {
      entry?: number;
      startTime?: string | undefined;
      redriveCount?: number;
      retryCount?: number;
    }) =>
      waitFence(attempt.entry ?? 1, {
        startTime: 'startTime' in attempt ? attempt.startTime : EXECUTION_1,
        redriveCount: attempt.redriveCount ?? 0,
        retryCount: attempt.retryCount ?? 0,
      });

    // Act
    const [mine, stored] = [fence(later), fence(earlier)];

    // Assess: the later wait replaces the earlier one's token; the earlier one's late put is superseded.
    expect(isLaterWait(stored, mine)).toBe(false);
    expect(isLaterWait(mine, stored)).toBe(true);
    expect(isLaterWait(undefined, stored)).toBe(false);
    expect(isLaterWait(stored, undefined)).toBe(true);
  });

  it('reads the start time at millisecond precision whatever ISO 8601 form it comes in, and refuses no time', () => {
    const at = (startTime: string) =>
      waitFence(1, { startTime, redriveCount: 0, retryCount: 0 }).split('.0000')[0];
    expect(at('2026-11-30T07:42:10.5Z')).toBe('2026-11-30T07:42:10.500Z');
    expect(at('2026-11-30T07:42:10Z')).toBe('2026-11-30T07:42:10.000Z');
    expect(at('2026-11-30T08:42:10.500+01:00')).toBe('2026-11-30T07:42:10.500Z');
    expect(() => waitFence(1, { startTime: 'yesterday', redriveCount: 0, retryCount: 0 })).toThrow(
      RangeError,
    );
    expect(
      waitFence(1, { startTime: EXECUTION_1, redriveCount: 0, retryCount: 0 }).length,
    ).toBeLessThanOrEqual(64);
  });
});

describe('Function: awaitResume with a late attempt', () => {
  it('keeps the live token when the earlier attempt stores its token after the retry, and resumes through it', async () => {
    // Prepare: the first attempt (RetryCount 0) hung; the retry (RetryCount 1) stored the live token.
    const store = testStore();
    const { run, rev } = await pausedRun(store);
    const answers: string[] = [];
    const answer = async (token: string) => {
      answers.push(token);
    };
    const live = await awaitResume(
      { store, answer },
      { runId: run.runId, taskToken: 'token-live', rev, wait: { retryCount: 1, redriveCount: 0 } },
    );
    expect(live).toBe('waiting_for_resume');
    // Act: the hung first attempt goes on and stores its (dead) token.
    const stale = await awaitResume(
      { store, answer },
      { runId: run.runId, taskToken: 'token-stale', rev, wait: { retryCount: 0, redriveCount: 0 } },
    );
    // Assess: it lost and did nothing; the operator's resume answers the live token.
    expect(stale).toBe('superseded');
    expect(await store.getResumeToken(run.runId)).toBe('token-live');
    const resumed: string[] = [];
    await resumeGraphRun(operations(store, resumed), { owner: run.owner, runId: run.runId, actor: ACTOR });
    expect(resumed).toEqual(['token-live']);
    expect(answers).toEqual([]);
    expect(await store.getResumeToken(run.runId)).toBeUndefined();
  });

  it('a repeat of the same attempt changes nothing: an answered wait stays answered', async () => {
    // Prepare: the wait stored its token and a resume answered it.
    const store = testStore();
    const { run, rev } = await pausedRun(store);
    const attempt = { runId: run.runId, taskToken: 'token-1', rev, wait: { retryCount: 0, redriveCount: 0 } };
    await awaitResume({ store, answer: async () => {} }, attempt);
    const resumed: string[] = [];
    await resumeGraphRun(operations(store, resumed), { owner: run.owner, runId: run.runId, actor: ACTOR });
    expect(resumed).toEqual(['token-1']);
    // Act: the same invocation stores the same token again; a wait of an earlier definition (no fence) too.
    const repeated = await store.putResumeToken(run.runId, 'token-1', waitFence(rev, attempt.wait));
    const legacy = await store.putResumeToken(run.runId, 'token-unfenced');
    // Assess: neither replaces it or marks it unanswered.
    expect(repeated).toBe('current');
    expect(legacy).toBe('superseded');
    expect(await store.getResumeToken(run.runId)).toBeUndefined();
  });

  it('a fence of the definition before (no start time) never holds off a later execution, and never replaces its token', async () => {
    // Prepare: an execution of the earlier definition stored a retried attempt's token (a 3-part fence).
    const store = testStore();
    const { run, rev } = await pausedRun(store);
    const answer = async () => {};
    const old = { retryCount: 2, redriveCount: 0 };
    await awaitResume({ store, answer }, { runId: run.runId, taskToken: 'old-definition', rev, wait: old });
    // Act: a wait of this definition at an earlier entry (its first attempt), then the old one's late repeat.
    const fresh = { retryCount: 0, redriveCount: 0, startTime: EXECUTION_1 };
    const current = await awaitResume(
      { store, answer },
      { runId: run.runId, taskToken: 'this-definition', rev: rev - 1, wait: fresh },
    );
    const late = await store.putResumeToken(run.runId, 'old-late', waitFence(rev, { ...old, retryCount: 3 }));
    // Assess: the DynamoDB condition (bytes) orders the two formats as isLaterWait does.
    expect(current).toBe('waiting_for_resume');
    expect(late).toBe('superseded');
    expect(await store.getResumeToken(run.runId)).toBe('this-definition');
  });

  it('a late attempt of a dead execution never replaces the token of a later execution', async () => {
    const store = testStore();
    const { run, rev } = await pausedRun(store);
    const answer = async () => {};
    const wait = (startTime: string, retryCount: number) => ({ retryCount, redriveCount: 0, startTime });
    await awaitResume(
      { store, answer },
      { runId: run.runId, taskToken: 'execution-2', rev, wait: wait(EXECUTION_2, 0) },
    );
    // Act: execution 1's retried attempt, still running when execution 1 failed, stores its token.
    const stale = await awaitResume(
      { store, answer },
      { runId: run.runId, taskToken: 'execution-1-retry', rev, wait: wait(EXECUTION_1, 4) },
    );
    // Assess
    expect(stale).toBe('superseded');
    expect(await store.getResumeToken(run.runId)).toBe('execution-2');
  });

  it('a later entry, or a redrive, replaces the token of an earlier one whatever its retry count', async () => {
    const store = testStore();
    const { run, rev } = await pausedRun(store);
    const answer = async () => {};
    await awaitResume(
      { store, answer },
      { runId: run.runId, taskToken: 'entry-1-retry-3', rev, wait: { retryCount: 3, redriveCount: 0 } },
    );
    expect(
      await awaitResume(
        { store, answer },
        { runId: run.runId, taskToken: 'redriven', rev, wait: { retryCount: 0, redriveCount: 1 } },
      ),
    ).toBe('waiting_for_resume');
    expect(await store.getResumeToken(run.runId)).toBe('redriven');
    expect(
      await awaitResume(
        { store, answer },
        { runId: run.runId, taskToken: 'entry-2', rev: rev + 2, wait: { retryCount: 0, redriveCount: 0 } },
      ),
    ).toBe('waiting_for_resume');
    expect(await store.getResumeToken(run.runId)).toBe('entry-2');
  });
});

const externalGraph = {
  kind: 'graph',
  name: 'fenced-graph',
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'build', type: 'external_task', engine: 'http-runtime', mode: 'live', payload: { n: 1 } },
    { id: 'done', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'build' },
    { from: 'build', to: 'done' },
  ],
};

describe('Function: startStepWait with a late attempt', () => {
  const h = apiHarness();

  /** A graph run whose `build` step (an external task) Advance has started; executions record each start. */
  async function waitingStep(name: string) {
    const run = await aliceRunOf(h, { ...externalGraph, name }, {});
    const starts: string[] = [];
    let failStarts = 0;
    const executions: ExecutionsPort = {
      start: async () => ({ executionArn: 'arn:agent' }),
      stop: async () => undefined,
      external: {
        start: async (executionName) => {
          if (failStarts > 0) {
            failStarts--;
            throw Object.assign(new Error('the function died before StartExecution'), { name: 'Crash' });
          }
          starts.push(executionName);
          return { executionArn: `arn:aws:states:local:0:execution:external:${executionName}` };
        },
      },
    };
    const deps = {
      store: h.store,
      definitionOf: graphDefinitions(h.store),
      clock: h.clock,
      ids: randomIds,
      executions,
      humanTasks: unconfiguredHumanTasks,
      answer: async () => {
        throw new Error('the wait answered its own token');
      },
    };
    await advanceGraphRun(deps, run.runId);
    const ref = { runId: run.runId, stepId: 'build', type: 'external_task' as const, attempt: 1 };
    const step = async () => (await h.store.loadGraphRun(run.runId))!.steps.find((s) => s.stepId === 'build');
    return { run, deps, ref, starts, step, failNextStart: () => void failStarts++ };
  }

  it("keeps the retry's token on the step when the earlier attempt records its wait after it", async () => {
    const { run, deps, ref, starts, step } = await waitingStep('fenced-graph-late');
    // The retry (RetryCount 1) records the live token and starts the child.
    expect(
      await startStepWait(deps, {
        ...ref,
        taskToken: 'token-live',
        wait: { retryCount: 1, redriveCount: 0 },
      }),
    ).toBe('child_started');
    // Act: the hung first attempt goes on.
    const stale = await startStepWait(deps, {
      ...ref,
      taskToken: 'token-stale',
      wait: { retryCount: 0, redriveCount: 0 },
    });
    // Assess: it changed nothing; the child's end answers the live token.
    expect(stale).toBe('superseded');
    const childRunId = childRunIdFor(run.runId, 'build', 1);
    expect(await step()).toMatchObject({ status: 'waiting', taskToken: 'token-live', childRunId });
    expect(starts).toEqual([childRunId]);
  });

  it("takes a later execution's re-dispatch of the same attempt (RetryCount back at 0) over a retried attempt of the one before", async () => {
    // Prepare: execution 1's first attempt crashed; its retry (RetryCount 1) stored its token and started the
    // child. The run then failed (another step), and an operator's step retry started execution 2, which
    // dispatches this still-waiting step again in its same attempt: a fresh token, RetryCount 0.
    const { run, deps, ref, starts, step } = await waitingStep('fenced-graph-cross');
    const attempt = (startTime: string, retryCount: number) => ({ retryCount, redriveCount: 0, startTime });
    expect(
      await startStepWait(deps, { ...ref, taskToken: 'execution-1', wait: attempt(EXECUTION_1, 1) }),
    ).toBe('child_started');
    // Act
    const redispatched = await startStepWait(deps, {
      ...ref,
      taskToken: 'execution-2',
      wait: attempt(EXECUTION_2, 0),
    });
    // A late invocation of execution 1 (its retry's retry, still running) after it.
    const late = await startStepWait(deps, {
      ...ref,
      taskToken: 'execution-1-late',
      wait: attempt(EXECUTION_1, 2),
    });
    // Assess: the step waits on execution 2's token (the child's end answers it), on the same child, started once.
    expect(redispatched).toBe('child_started');
    expect(late).toBe('superseded');
    const childRunId = childRunIdFor(run.runId, 'build', 1);
    expect(await step()).toMatchObject({
      status: 'waiting',
      taskToken: 'execution-2',
      waitFence: waitFence(1, attempt(EXECUTION_2, 0)),
      childRunId,
    });
    expect(starts).toEqual([childRunId]);
  });

  it('a wait of this definition replaces a token stored by an execution of the definition before it', async () => {
    const { deps, ref, step } = await waitingStep('fenced-graph-old-format');
    // An execution of the definition before (no start time) stored its retried attempt's token.
    await startStepWait(deps, {
      ...ref,
      taskToken: 'old-definition',
      wait: { retryCount: 5, redriveCount: 0 },
    });
    // Act
    const taken = await startStepWait(deps, {
      ...ref,
      taskToken: 'this-definition',
      wait: { retryCount: 0, redriveCount: 0, startTime: EXECUTION_1 },
    });
    // Assess
    expect(taken).toBe('child_started');
    expect(await step()).toMatchObject({ status: 'waiting', taskToken: 'this-definition' });
  });

  it('a wait without a fence (an execution of an earlier definition) never replaces a fenced token', async () => {
    const { run, deps, ref, step } = await waitingStep('fenced-graph-unfenced');
    expect(
      await startStepWait(deps, {
        ...ref,
        taskToken: 'token-live',
        wait: { retryCount: 0, redriveCount: 0 },
      }),
    ).toBe('child_started');
    // Act: a put that carries no attempt.
    const legacy = await startStepWait(deps, { ...ref, taskToken: 'token-unfenced' });
    // Assess
    expect(legacy).toBe('superseded');
    expect(await step()).toMatchObject({
      status: 'waiting',
      taskToken: 'token-live',
      childRunId: childRunIdFor(run.runId, 'build', 1),
    });
  });

  it('a repeat of the same attempt is idempotent: the same token, the same child', async () => {
    const { run, deps, ref, starts, step } = await waitingStep('fenced-graph-repeat');
    const wait = { ...ref, taskToken: 'token-1', wait: { retryCount: 0, redriveCount: 0 } };
    expect(await startStepWait(deps, wait)).toBe('child_started');
    const recorded = await step();
    expect(await startStepWait(deps, wait)).toBe('child_started');
    const childRunId = childRunIdFor(run.runId, 'build', 1);
    expect(await step()).toMatchObject({ taskToken: 'token-1', waitFence: recorded?.waitFence, childRunId });
    // Started once: the first start recorded the child's execution.
    expect(starts).toEqual([childRunId]);
    expect((await h.store.getRun(childRunId))?.executionArn).toContain(childRunId);
  });

  it('a wait that died after recording the step waiting, before starting the child, starts it when retried', async () => {
    const { run, deps, ref, starts, step, failNextStart } = await waitingStep('fenced-graph-crash');
    const childRunId = childRunIdFor(run.runId, 'build', 1);
    // The first attempt creates the child and records the step waiting on it, then dies before StartExecution.
    failNextStart();
    await expect(
      startStepWait(deps, { ...ref, taskToken: 'token-0', wait: { retryCount: 0, redriveCount: 0 } }),
    ).rejects.toThrow('the function died before StartExecution');
    expect(await step()).toMatchObject({ status: 'waiting', taskToken: 'token-0', childRunId });
    expect(starts).toEqual([]);
    expect((await h.store.getRun(childRunId))?.status).toBe('pending');
    // Act: Step Functions retries the task (a crash is retried) with a fresh token.
    const retried = await startStepWait(deps, {
      ...ref,
      taskToken: 'token-1',
      wait: { retryCount: 1, redriveCount: 0 },
    });
    // Assess: the same child (its id is derived from run, step and attempt) is started once, and the step
    // waits on the retry's token.
    expect(retried).toBe('child_started');
    expect(starts).toEqual([childRunId]);
    expect(await step()).toMatchObject({ status: 'waiting', taskToken: 'token-1', childRunId });
    const children = await h.store.getRun(childRunId);
    expect(children?.parent).toEqual({ runId: run.runId, stepId: 'build', attempt: 1 });
  });
});
