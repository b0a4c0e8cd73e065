/**
 * API, schedule and event starts left `pending` (shared/runs/pending-sweep.ts), on DynamoDB Local: an API start
 * (with an Idempotency-Key or without), or start-run for a schedule or an event, creates its run with turn 0's
 * reservation (on the day's counter too) and then starts its execution. A crash in between, an uncertain start
 * that DescribeExecution could not settle, or a trigger whose every attempt failed leaves the run `pending`; such a run carries a marker (shared/store/pending-runs.ts) that the jobs sweep's pending-runs step
 * reads. Past 10 minutes it asks DescribeExecution: no execution ends the run `failed` (`ExecutionNotStarted`)
 * with the reservation given back; an execution leaves the run alone. Every way out of `pending` removes the
 * marker in its own transaction. The table is this file's own: the markers' hour buckets are shared by all runs.
 */
import { ExecutionDoesNotExist, type SFNClient } from '@aws-sdk/client-sfn';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createJobsSweepHandler } from '../../functions/jobs-sweep.ts';
import { createStartRunHandler } from '../../functions/start-run.ts';
import { DEFAULT_PRICES } from '../../shared/core/pricing.ts';
import { DEFAULT_MODEL_CONFIG } from '../../shared/model/resolve.ts';
import {
  cancelRun,
  ExecutionNotStartedError,
  RunNotStartedError,
  startRun,
} from '../../shared/runs/index.ts';
import { PENDING_SWEEP_LIMITS, sweepPendingRuns } from '../../shared/runs/pending-sweep.ts';
import { sfnExecutions } from '../../shared/runtime/executions-sfn.ts';
import { observeStore } from '../../shared/runtime/observed-store.ts';
import { createTelemetry, type Telemetry } from '../../shared/runtime/telemetry.ts';
import { telemetryObserver } from '../../shared/runtime/telemetry-observers.ts';
import type { Run } from '../../shared/schemas/run.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { keys } from '../../shared/store/keys.ts';
import { hourOf, PENDING_MARKER_TTL_SECONDS } from '../../shared/store/pending-runs.ts';
import { TABLE_KEYS } from '../../shared/store/table.ts';
import { captureOutput } from '../runtime/capture.ts';
import { driveRun, engineDeps, ScriptedModel, text } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { createOwnTable } from '../support/table.ts';

/** A start whose StartExecution was throttled: the run stays pending, named, with the throttle as its cause. */
const PENDING_AFTER_THROTTLE = { name: 'RunStartPendingError', cause: { name: 'ThrottlingException' } };

const MACHINE = 'arn:aws:states:eu-west-1:123456789012:stateMachine:m';
let days = 0;
/**
 * A creation time two days after the last test's: the sweep looks 24 hours back, so each test sees only its own
 * runs (the runs other tests leave pending stay out of its buckets).
 */
const freshDay = (time = '07:05:00') =>
  `${new Date(Date.parse('2026-06-01T00:00:00.000Z') + 2 * 86_400_000 * days++).toISOString().slice(0, 10)}T${time}.000Z`;
const MINUTE = 60_000;

let store: DynamoStore;
beforeAll(async () => {
  store = testStore((await createOwnTable('wf-pending')).tableName);
});

type Answer = 'missing' | 'exists' | 'throttled' | 'started';

/**
 * Step Functions answering StartExecution with `start` and DescribeExecution with `describe`; calls recorded, and
 * the name of each StartExecution in `names`.
 */
function stepFunctions(describe: Answer, start: Answer = 'started', onDescribe?: () => void) {
  const calls: { command: string; arn?: string }[] = [];
  const names: string[] = [];
  const client = {
    send: async (command: {
      constructor: { name: string };
      input: { name?: string; executionArn?: string };
    }) => {
      const kind = command.constructor.name;
      calls.push({
        command: kind,
        ...(command.input.executionArn ? { arn: command.input.executionArn } : {}),
      });
      if (command.input.name) names.push(command.input.name);
      const answer = kind === 'DescribeExecutionCommand' ? describe : start;
      if (kind === 'DescribeExecutionCommand') onDescribe?.();
      if (answer === 'throttled')
        throw Object.assign(new Error('Rate exceeded'), {
          name: 'ThrottlingException',
          $fault: 'client',
          $metadata: {},
        });
      if (answer === 'missing')
        throw new ExecutionDoesNotExist({ message: 'Execution Does Not Exist', $metadata: {} });
      if (kind === 'DescribeExecutionCommand')
        return { executionArn: command.input.executionArn, status: 'RUNNING' };
      return { executionArn: `${MACHINE.replace(':stateMachine:', ':execution:')}:${command.input.name}` };
    },
  } as unknown as Pick<SFNClient, 'send'>;
  return { executions: sfnExecutions(client, MACHINE), calls, names };
}

const arnOf = (runId: string) => `${MACHINE.replace(':stateMachine:', ':execution:')}:${runId}`;

async function dayCapped(clock: FixedClock) {
  return (
    await seedWorkflow(store, minimalWorkflow({ budget: { maxUsdPerRun: 1, maxUsdPerDay: 5 } }), { clock })
  ).version;
}

/** An API start that crashed right after creating its run (launchRun's createRun, then nothing). */
async function crashedStart(clock: FixedClock) {
  const version = await dayCapped(clock);
  const run = await seedRun(store, version, { clock });
  return { run, version };
}

/** An API start whose StartExecution was throttled every time and whose DescribeExecution failed too. */
async function undecidedStart(clock: FixedClock) {
  const version = await dayCapped(clock);
  let runId = '';
  const { executions } = stepFunctions('throttled', 'throttled');
  const outcome = await startRun(
    {
      store,
      executions,
      clock,
      ids: { next: (prefix) => (runId = `${prefix}_${Math.random().toString(36).slice(2, 14)}`) },
    },
    {
      owner: version.owner,
      workflowId: version.workflowId,
      trigger: { type: 'on_demand', caller: 'test' },
      actor: 'owner:test',
    },
  ).catch((error: unknown) => error);
  expect(outcome).toMatchObject(PENDING_AFTER_THROTTLE);
  return { run: (await store.getRun(runId))!, version };
}

const markerOf = async (run: Run) =>
  (await store.listPendingRunMarkers(hourOf(run.createdAt), '9999')).find(
    (marker) => marker.runId === run.runId,
  );
const dayOf = (run: Run) => store.getDaySpendDetail(run.owner, run.workflowId, run.createdAt.slice(0, 10));

/** The run as the sweep leaves one it found unstarted: failed, its day's reservation given back, unmarked. */
async function expectEndedUnstarted(run: Run): Promise<Run | undefined> {
  const ended = await store.getRun(run.runId);
  expect(ended).toMatchObject({
    status: 'failed',
    stopReason: 'error',
    error: { name: 'ExecutionNotStarted', message: expect.stringContaining('ExecutionDoesNotExist') },
  });
  expect(await dayOf(run)).toEqual({ totalUsd: 0, reservedUsd: 0 });
  expect(await markerOf(run)).toBeUndefined();
  return ended;
}

describe('sweepPendingRuns: API starts left pending', () => {
  it.each([
    ['a crash between creating the run and starting it', crashedStart],
    ['an uncertain start that DescribeExecution could not settle', undecidedStart],
  ])(
    'ends the run failed with its reservation given back after %s, once its execution is found missing',
    async (_label, make) => {
      // Prepare: the run is pending, holding turn 0's reservation on the day.
      const clock = new FixedClock(freshDay());
      const { run } = await make(clock);
      expect(run).toMatchObject({ status: 'pending', reservation: { turn: 0, daily: true } });
      expect(await dayOf(run)).toEqual({ totalUsd: run.reservation!.usd, reservedUsd: run.reservation!.usd });
      expect(await markerOf(run)).toBeDefined();
      clock.advance(11 * MINUTE);
      const { executions, calls } = stepFunctions('missing');

      // Act
      const swept = await sweepPendingRuns({ store, executions, clock });

      // Assess
      expect(swept).toMatchObject({ settled: [run.runId], started: [], undecided: [], complete: true });
      expect(calls).toEqual([{ command: 'DescribeExecutionCommand', arn: arnOf(run.runId) }]);
      const ended = await expectEndedUnstarted(run);
      expect(ended?.reservation).toBeUndefined();
      const audit = await store.listAudit(run.runId);
      expect(audit.filter((entry) => entry.type === 'budget_settled').map((entry) => entry.data)).toEqual([
        expect.objectContaining({ turn: 0, actualUsd: 0, unused: true, notStarted: true }),
      ]);
    },
  );

  it('leaves a run whose execution exists as it is, and removes its marker', async () => {
    // Prepare
    const clock = new FixedClock(freshDay());
    const { run } = await crashedStart(clock);
    clock.advance(11 * MINUTE);
    const { executions } = stepFunctions('exists');

    // Act
    const swept = await sweepPendingRuns({ store, executions, clock });

    // Assess: the run and its reservation are its execution's.
    expect(swept).toMatchObject({ settled: [], started: [run.runId], undecided: [] });
    expect(await store.getRun(run.runId)).toMatchObject({
      status: 'pending',
      rev: run.rev,
      reservation: run.reservation,
    });
    expect(await dayOf(run)).toEqual({ totalUsd: run.reservation!.usd, reservedUsd: run.reservation!.usd });
    expect(await markerOf(run)).toBeUndefined();
  });

  it('leaves a run pending under 10 minutes unasked', async () => {
    // Prepare
    const clock = new FixedClock(freshDay());
    const { run } = await crashedStart(clock);
    clock.advance(9 * MINUTE);
    const { executions, calls } = stepFunctions('missing');

    // Act
    const swept = await sweepPendingRuns({ store, executions, clock });

    // Assess
    expect(swept.settled).not.toContain(run.runId);
    expect(calls).toEqual([]);
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'pending', rev: run.rev });
    expect(await markerOf(run)).toBeDefined();
  });

  it('keeps a run and its marker when DescribeExecution fails, and says it stayed undecided', async () => {
    // Prepare
    const clock = new FixedClock(freshDay());
    const { run } = await crashedStart(clock);
    clock.advance(11 * MINUTE);
    const { executions } = stepFunctions('throttled');

    // Act
    const swept = await sweepPendingRuns({ store, executions, clock });

    // Assess
    expect(swept.undecided).toEqual([{ runId: run.runId, reason: expect.any(String) }]);
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'pending', rev: run.rev });
    expect(await markerOf(run)).toBeDefined();
  });

  it('stops at its time budget and leaves the rest for the next sweep', async () => {
    // Prepare: two stale runs in one hour; each describe takes 6 s of the clock (budget: 5 s).
    const clock = new FixedClock(freshDay());
    const first = (await crashedStart(clock)).run;
    clock.advance(1_000);
    const second = (await crashedStart(clock)).run;
    clock.advance(11 * MINUTE);
    const { executions, calls } = stepFunctions('missing', 'started', () => clock.advance(6_000));

    // Act
    const swept = await sweepPendingRuns({ store, executions, clock });

    // Assess
    expect(swept).toMatchObject({ settled: [first.runId], complete: false });
    expect(calls).toHaveLength(1);
    expect(await store.getRun(second.runId)).toMatchObject({ status: 'pending' });
    expect(await markerOf(second)).toBeDefined();
  });
});

/** The API's start of a run with an Idempotency-Key (startRun as functions/api.ts calls it); `created` gets the new run's id. */
function keyedStart(
  version: Awaited<ReturnType<typeof dayCapped>>,
  clock: FixedClock,
  executions: ReturnType<typeof stepFunctions>['executions'],
  key: string,
  created: { runId?: string } = {},
) {
  const next = (prefix: string) => (created.runId = `${prefix}_${Math.random().toString(36).slice(2, 14)}`);
  return startRun(
    { store, executions, clock, ids: { next } },
    {
      owner: version.owner,
      workflowId: version.workflowId,
      trigger: { type: 'on_demand', caller: 'test', idempotencyKey: key },
      input: { ticket: 4711 },
      idempotency: { scope: `api:${version.workflowId}`, key },
      actor: 'owner:test',
    },
  );
}

/** A keyed API start whose StartExecution was throttled, and whose caller never repeated it. */
async function abandonedKeyedStart(clock: FixedClock, key: string) {
  const version = await dayCapped(clock);
  const created: { runId?: string } = {};
  const { executions } = stepFunctions('missing', 'throttled');
  const outcome = await keyedStart(version, clock, executions, key, created).catch((error: unknown) => error);
  // With a key the API throws the start's error and leaves the run for a repeat (start-run.ts, launchRun).
  expect(outcome).toMatchObject(PENDING_AFTER_THROTTLE);
  return { run: (await store.getRun(created.runId!))!, version };
}

describe('keyed API starts left pending', () => {
  it('ends a keyed start whose caller never repeated it, as a keyless one', async () => {
    // Prepare: the run is pending with turn 0's reservation on the day, and marked.
    const clock = new FixedClock(freshDay());
    const { run } = await abandonedKeyedStart(clock, 'abandoned-1');
    expect(run).toMatchObject({
      status: 'pending',
      trigger: { idempotencyKey: 'abandoned-1' },
      reservation: { turn: 0, daily: true },
    });
    expect(await dayOf(run)).toEqual({ totalUsd: run.reservation!.usd, reservedUsd: run.reservation!.usd });
    clock.advance(11 * MINUTE);

    // Act
    const swept = await sweepPendingRuns({ store, executions: stepFunctions('missing').executions, clock });

    // Assess
    expect(swept).toMatchObject({ settled: [run.runId], undecided: [] });
    await expectEndedUnstarted(run);
  });

  it('answers a later repeat of the key with the ended run, and starts nothing', async () => {
    // Prepare: the sweep ended the abandoned run.
    const clock = new FixedClock(freshDay());
    const { run, version } = await abandonedKeyedStart(clock, 'abandoned-2');
    clock.advance(11 * MINUTE);
    await sweepPendingRuns({ store, executions: stepFunctions('missing').executions, clock });
    const { executions, calls } = stepFunctions('missing');

    // Act: the same request again (same key and body).
    const repeated = await keyedStart(version, clock, executions, 'abandoned-2');

    // Assess: the key stays bound to its run; a new run takes a new key.
    expect(repeated).toMatchObject({ created: false, run: { runId: run.runId, status: 'failed' } });
    expect(calls).toEqual([]);
    expect(await runIdsOf(version)).toEqual([run.runId]);
    expect(await dayOf(run)).toEqual({ totalUsd: 0, reservedUsd: 0 });
  });

  it('keeps a run a repeat started before the sweep asked: only the marker goes', async () => {
    // Prepare: the caller repeated the request, and this time its execution started.
    const clock = new FixedClock(freshDay());
    const { run, version } = await abandonedKeyedStart(clock, 'repeated-3');
    const repeat = stepFunctions('exists');
    const repeated = await keyedStart(version, clock, repeat.executions, 'repeated-3');
    expect(repeated).toMatchObject({ created: false, run: { runId: run.runId } });
    expect(repeat.calls).toEqual([{ command: 'StartExecutionCommand' }]);
    clock.advance(11 * MINUTE);

    // Act
    const swept = await sweepPendingRuns({ store, executions: repeat.executions, clock });

    // Assess
    expect(swept).toMatchObject({ settled: [], started: [run.runId] });
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'pending', rev: run.rev });
    expect(await markerOf(run)).toBeUndefined();
  });

  it('stops at its first turn the execution a repeat started after the sweep ended the run', async () => {
    // Prepare: the sweep found no execution and ended the run; a repeat that read the run while it was still
    // pending starts its execution (named after the run) only afterwards.
    const clock = new FixedClock(freshDay());
    const { run } = await abandonedKeyedStart(clock, 'late-4');
    clock.advance(11 * MINUTE);
    await sweepPendingRuns({ store, executions: stepFunctions('missing').executions, clock });
    const ended = (await store.getRun(run.runId))!;
    const model = new ScriptedModel([{ content: [text('should not be asked')], stopReason: 'end_turn' }]);

    // Act: that late execution's first turn.
    await driveRun(engineDeps(store, model, { clock }), run.runId);

    // Assess: no model call, no spend, the run as the sweep ended it.
    expect(model.requests).toHaveLength(0);
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'failed', rev: ended.rev });
    expect(await dayOf(run)).toEqual({ totalUsd: 0, reservedUsd: 0 });
  });
});

/**
 * start-run as a schedule or a rule invokes it (functions/start-run.ts), over this file's table: `invoke` sends
 * the trigger (the same scheduled time or event id each time, as Lambda's retries and a redrive do) with Step
 * Functions answering StartExecution with `start`; `created.runId` is the run's id once created (the first
 * attempt's).
 */
async function triggered(clock: FixedClock, type: 'schedule' | 'event') {
  const version = await dayCapped(clock);
  const created: { runId?: string } = {};
  const telemetry = createTelemetry({});
  const input =
    type === 'schedule'
      ? { owner: version.owner, workflowId: version.workflowId, scheduledTime: isoOf(clock) }
      : {
          owner: version.owner,
          workflowId: version.workflowId,
          event: {
            version: '0',
            id: `evt-${Math.random().toString(36).slice(2, 14)}`,
            source: 'com.example.orders',
            'detail-type': 'Order Placed',
            detail: { 'wf-owner': version.owner },
          },
        };
  const invoke = (start: Answer, through: (inner: DynamoStore) => DynamoStore = (inner) => inner) => {
    const sfn = stepFunctions('missing', start);
    const handler = createStartRunHandler(
      () => ({
        store: through(store),
        executions: sfn.executions,
        clock,
        // A retry prepares a run with a new id and is answered the one the first attempt created.
        ids: {
          next: (prefix) => {
            const id = `${prefix}_${Math.random().toString(36).slice(2, 14)}`;
            created.runId ??= id;
            return id;
          },
        },
      }),
      telemetry,
    );
    return { sfn, outcome: handler(input).catch((error: unknown) => error) };
  };
  // The trigger's idempotency marker (shared/runs/start-run.ts idempotencyFor): the run it names.
  const markedRunId = async () => {
    const key =
      'event' in input
        ? keys.idempotency(version.owner, `event:${version.workflowId}`, input.event.id)
        : keys.idempotency(version.owner, `schedule:${version.workflowId}`, input.scheduledTime);
    const { Item } = await store.ctx.doc.send(new GetCommand({ TableName: store.ctx.table, Key: key }));
    return Item?.runId as string | undefined;
  };
  return { version, created, invoke, telemetry, markedRunId };
}

/**
 * A store whose creations that replace an ended run (Idempotency.replaces) wait until `parties` of them are
 * under way: each has found the ended run before any of them writes.
 */
function meetingToReplace(parties: number) {
  let arrived = 0;
  let release = () => {};
  const met = new Promise<void>((resolve) => (release = resolve));
  const through = (inner: DynamoStore): DynamoStore =>
    new Proxy(inner, {
      get(target, property, receiver) {
        if (property === 'createRun')
          return async (...args: Parameters<DynamoStore['createRun']>) => {
            if (args[1]?.replaces !== undefined) {
              arrived += 1;
              if (arrived === parties) release();
              await met;
            }
            return target.createRun(...args);
          };
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return { through, arrived: () => arrived };
}

/** The runs of a workflow, by id. */
const runIdsOf = async (version: { owner: string; workflowId: string }) =>
  (await store.listRuns({ owner: version.owner, workflowId: version.workflowId, limit: 50 })).items
    .map((run) => run.runId)
    .sort();

/** A trigger whose every attempt failed (StartExecution throttled), and whose run the sweep then ended unstarted. */
async function endedByTheSweep(clock: FixedClock, type: 'schedule' | 'event') {
  const trigger = await triggered(clock, type);
  expect(await trigger.invoke('throttled').outcome).toMatchObject(PENDING_AFTER_THROTTLE);
  clock.advance(11 * MINUTE);
  await sweepPendingRuns({ store, executions: stepFunctions('missing').executions, clock });
  const ended = (await expectEndedUnstarted((await store.getRun(trigger.created.runId!))!))!;
  return { ...trigger, ended };
}

const isoOf = (clock: FixedClock) => new Date(clock.nowMs()).toISOString();

describe('schedule and event starts left pending', () => {
  it.each(['schedule', 'event'] as const)(
    'ends a %s start whose trigger failed every attempt, with its reservation given back',
    async (type) => {
      // Prepare: start-run and Lambda's two retries of it, each StartExecution throttled (the invocation fails,
      // and the trigger goes to the dead-letter queue).
      const clock = new FixedClock(freshDay());
      const { created, invoke } = await triggered(clock, type);
      for (const wait of [0, MINUTE, 2 * MINUTE]) {
        clock.advance(wait);
        expect(await invoke('throttled').outcome).toMatchObject(PENDING_AFTER_THROTTLE);
      }
      const run = (await store.getRun(created.runId!))!;
      expect(run).toMatchObject({
        status: 'pending',
        trigger: { type },
        reservation: { turn: 0, daily: true },
      });
      expect(await dayOf(run)).toEqual({ totalUsd: run.reservation!.usd, reservedUsd: run.reservation!.usd });
      expect(await markerOf(run)).toMatchObject({ runId: run.runId });
      clock.advance(11 * MINUTE);
      const { executions, calls } = stepFunctions('missing');

      // Act
      const swept = await sweepPendingRuns({ store, executions, clock });

      // Assess
      expect(swept).toMatchObject({ settled: [run.runId], started: [], undecided: [] });
      expect(calls).toEqual([{ command: 'DescribeExecutionCommand', arn: arnOf(run.runId) }]);
      await expectEndedUnstarted(run);
    },
  );

  it.each(['schedule', 'event'] as const)(
    'starts a pending %s run by its name when the trigger is retried, and the sweep leaves it to its execution',
    async (type) => {
      // Prepare: the first attempt's StartExecution throttled; Lambda's retry a minute later finds the run pending.
      const clock = new FixedClock(freshDay());
      const { created, invoke } = await triggered(clock, type);
      expect(await invoke('throttled').outcome).toMatchObject(PENDING_AFTER_THROTTLE);
      const run = (await store.getRun(created.runId!))!;
      clock.advance(MINUTE);
      const retry = invoke('started');
      expect(await retry.outcome).toEqual({ runId: run.runId, created: false });
      expect(retry.sfn.names).toEqual([run.runId]);
      clock.advance(11 * MINUTE);
      const { executions, calls } = stepFunctions('exists');

      // Act
      const swept = await sweepPendingRuns({ store, executions, clock });

      // Assess: the run and its reservation are its execution's; only the marker goes.
      expect(swept).toMatchObject({ settled: [], started: [run.runId], undecided: [] });
      expect(calls).toEqual([{ command: 'DescribeExecutionCommand', arn: arnOf(run.runId) }]);
      expect(await store.getRun(run.runId)).toMatchObject({
        status: 'pending',
        rev: run.rev,
        reservation: run.reservation,
      });
      expect(await markerOf(run)).toBeUndefined();
    },
  );

  it.each(['schedule', 'event'] as const)(
    'starts a new %s run in place of the run the sweep ended unstarted when the trigger is redriven, and re-points the marker',
    async (type) => {
      // Prepare: every attempt failed; the sweep ended the run (no execution of it exists).
      const clock = new FixedClock(freshDay());
      const { ended, invoke, telemetry, markedRunId, version } = await endedByTheSweep(clock, type);
      expect(await markedRunId()).toBe(ended.runId);
      clock.advance(3 * 86_400_000);
      const info = vi.spyOn(telemetry.logger, 'info').mockImplementation(() => {});

      // Act: the trigger redriven from the dead-letter queue, days later.
      const redrive = invoke('started');

      // Assess: a new run, started by its own name, in the marker's place; the ended run as the sweep left it,
      // but for its link to the new run (one revision on).
      const outcome = (await redrive.outcome) as { runId: string; created: boolean };
      expect(outcome).toEqual({ runId: expect.not.stringMatching(ended.runId), created: true });
      expect(redrive.sfn.names).toEqual([outcome.runId]);
      expect(await markedRunId()).toBe(outcome.runId);
      expect(await runIdsOf(version)).toEqual([ended.runId, outcome.runId].sort());
      expect(await store.getRun(ended.runId)).toEqual({
        ...ended,
        replacedBy: outcome.runId,
        rev: ended.rev + 1,
      });
      const fresh = (await store.getRun(outcome.runId))!;
      expect(fresh).toMatchObject({
        status: 'pending',
        owner: ended.owner,
        workflowId: ended.workflowId,
        trigger: { ...ended.trigger, replacesRunId: ended.runId },
        ...(ended.input === undefined ? {} : { input: ended.input }),
        reservation: { turn: 0, daily: true },
      });
      // Its own turn 0's reservation on its day, its own pending-run marker for the sweep to watch.
      expect(await dayOf(fresh)).toEqual({
        totalUsd: fresh.reservation!.usd,
        reservedUsd: fresh.reservation!.usd,
      });
      expect(await markerOf(fresh)).toMatchObject({ runId: fresh.runId });
      expect(fresh.input).toEqual(ended.input);
      // The audit's run_created names the run it replaced (its trigger), for an operator to follow.
      const created = (await store.listAudit(fresh.runId)).find((entry) => entry.type === 'run_created');
      expect(created?.data).toMatchObject({ trigger: { replacesRunId: ended.runId } });
      expect(info).toHaveBeenCalledWith(
        'run started in place of a run that ended without starting',
        expect.objectContaining({ runId: fresh.runId, replacesRunId: ended.runId, trigger: type }),
      );
    },
  );

  it('answers a second redrive with the new run, and starts no third', async () => {
    // Prepare: the first redrive replaced the ended run.
    const clock = new FixedClock(freshDay());
    const { ended, invoke, markedRunId, version } = await endedByTheSweep(clock, 'schedule');
    const first = (await invoke('started').outcome) as { runId: string; created: boolean };
    expect(first).toMatchObject({ created: true });

    // Act
    const second = invoke('started');

    // Assess: a duplicate of the new run (still pending: started again by its own name, as any retry).
    expect(await second.outcome).toEqual({ runId: first.runId, created: false });
    expect(second.sfn.names).toEqual([first.runId]);
    expect(await markedRunId()).toBe(first.runId);
    expect(await runIdsOf(version)).toEqual([ended.runId, first.runId].sort());
    expect(await store.getRun(ended.runId)).toMatchObject({ replacedBy: first.runId, rev: ended.rev + 1 });
  });

  it('starts exactly one new run for two redrives at once; the other answers it', async () => {
    // Prepare
    const clock = new FixedClock(freshDay());
    const { ended, invoke, markedRunId, version } = await endedByTheSweep(clock, 'event');

    // Act: two redrives of the same message (an operator's and a late Lambda retry) at the same time, each
    // having found the ended run before either writes its replacement.
    const meeting = meetingToReplace(2);
    const [a, b] = [invoke('started', meeting.through), invoke('started', meeting.through)];
    const outcomes = (await Promise.all([a.outcome, b.outcome])) as { runId: string; created: boolean }[];

    // Assess: both tried to replace it; one created the new run (its marker Put's condition held), the other's
    // transaction was cancelled as a whole and it was answered the winner's run; one run added, one reservation.
    expect(meeting.arrived()).toBe(2);
    const winner = outcomes.find((outcome) => outcome.created)!;
    expect(outcomes.map((outcome) => outcome.created).sort()).toEqual([false, true]);
    expect(outcomes.map((outcome) => outcome.runId)).toEqual([winner.runId, winner.runId]);
    expect(await runIdsOf(version)).toEqual([ended.runId, winner.runId].sort());
    expect(await markedRunId()).toBe(winner.runId);
    const fresh = (await store.getRun(winner.runId))!;
    expect(fresh.trigger).toMatchObject({ replacesRunId: ended.runId });
    // The ended run linked once, to the winner (the loser's transaction, its link's Update included, cancelled).
    expect(await store.getRun(ended.runId)).toMatchObject({ replacedBy: winner.runId, rev: ended.rev + 1 });
    expect(await dayOf(fresh)).toEqual({
      totalUsd: fresh.reservation!.usd,
      reservedUsd: fresh.reservation!.usd,
    });
    // Every start named the winner's execution: at most one execution.
    expect(new Set([...a.sfn.names, ...b.sfn.names])).toEqual(new Set([winner.runId]));
  });

  it.each([
    ['still pending', undefined],
    ['that ran and is done', 'done'],
    ['that ran and failed otherwise', 'failed'],
  ] as const)('answers a redrive of a run %s with that run, and starts no new run', async (_label, end) => {
    // Prepare: the first attempt created the run; its StartExecution was throttled.
    const clock = new FixedClock(freshDay());
    const { created, invoke, markedRunId, version } = await triggered(clock, 'schedule');
    expect(await invoke('throttled').outcome).toMatchObject(PENDING_AFTER_THROTTLE);
    const run = (await store.getRun(created.runId!))!;
    if (end)
      await store.commit({
        run,
        next: {
          ...run,
          status: end,
          ...(end === 'failed'
            ? { stopReason: 'error' as const, error: { name: 'States.Timeout', message: 'timed out' } }
            : { stopReason: 'end_turn' as const }),
          endedAt: isoOf(clock),
        },
      });
    const before = (await store.getRun(run.runId))!;
    clock.advance(3 * 86_400_000);

    // Act
    const redrive = invoke('started');

    // Assess: the same run; a pending one started by its own name, an ended one not started at all.
    expect(await redrive.outcome).toEqual({ runId: run.runId, created: false });
    expect(redrive.sfn.names).toEqual(end ? [] : [run.runId]);
    expect(await runIdsOf(version)).toEqual([run.runId]);
    expect(await markedRunId()).toBe(run.runId);
    expect(await store.getRun(run.runId)).toEqual(before);
    expect(before.replacedBy).toBeUndefined();
  });

  it('marks no run of a delegated job (the jobs sweep finds it again)', async () => {
    const clock = new FixedClock(freshDay());
    const version = await dayCapped(clock);
    const job = await seedRun(store, version, {
      clock,
      trigger: {
        type: 'job',
        clientId: 'svc-bot',
        grantId: 'grant_abc123',
        grantVersion: 1,
        jobId: 'job_1gabc123',
        attempt: 1,
      },
    });
    expect(await markerOf(job)).toBeUndefined();
  });

  it('goes with the first turn of a scheduled run', async () => {
    // Prepare
    const clock = new FixedClock(freshDay());
    const { created, invoke } = await triggered(clock, 'schedule');
    expect(await invoke('started').outcome).toMatchObject({ created: true });
    const run = (await store.getRun(created.runId!))!;
    expect(await markerOf(run)).toBeDefined();
    const model = new ScriptedModel([{ content: [text('done')], stopReason: 'end_turn' }]);

    // Act
    await driveRun(engineDeps(store, model, { clock }), run.runId);

    // Assess
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'done' });
    expect(await markerOf(run)).toBeUndefined();
  });
});

describe('pending-run markers: every way out of pending removes the marker', () => {
  it('is written for a start with an Idempotency-Key too (a caller that never repeats would leave it pending)', async () => {
    const clock = new FixedClock(freshDay());
    const version = await dayCapped(clock);
    const run = await seedRun(store, version, {
      clock,
      trigger: { type: 'on_demand', caller: 'test', idempotencyKey: 'k-1' },
    });
    expect(await markerOf(run)).toMatchObject({ runId: run.runId });
  });

  it('goes with the first turn commit', async () => {
    // Prepare
    const clock = new FixedClock(freshDay());
    const { run } = await crashedStart(clock);
    expect(await markerOf(run)).toBeDefined();
    const model = new ScriptedModel([{ content: [text('done')], stopReason: 'end_turn' }]);

    // Act
    await driveRun(engineDeps(store, model, { clock }), run.runId);

    // Assess
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'done' });
    expect(await markerOf(run)).toBeUndefined();
  });

  it('goes with a cancel', async () => {
    // Prepare
    const clock = new FixedClock(freshDay());
    const { run } = await crashedStart(clock);
    const { executions } = stepFunctions('exists');

    // Act
    await cancelRun(
      { store, executions, clock },
      { owner: run.owner, runId: run.runId, actor: 'owner:test' },
    );

    // Assess
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'cancelled' });
    expect(await markerOf(run)).toBeUndefined();
  });

  it('goes with the API ending a run whose start was refused', async () => {
    // Prepare
    const clock = new FixedClock(freshDay());
    const version = await dayCapped(clock);
    let runId = '';
    const refusing = {
      ...stepFunctions('missing').executions,
      start: async (name: string): Promise<{ executionArn: string }> => {
        throw new ExecutionNotStartedError(name, { cause: new Error('State Machine Does Not Exist') });
      },
    };

    // Act
    const outcome = await startRun(
      {
        store,
        executions: refusing,
        clock,
        ids: { next: (prefix) => (runId = `${prefix}_refused${Date.now()}`) },
      },
      {
        owner: version.owner,
        workflowId: version.workflowId,
        trigger: { type: 'on_demand', caller: 'test' },
        actor: 'owner:test',
      },
    ).catch((error: unknown) => error);

    // Assess
    expect(outcome).toBeInstanceOf(RunNotStartedError);
    const run = (await store.getRun(runId))!;
    expect(run).toMatchObject({ status: 'failed' });
    expect(await markerOf(run)).toBeUndefined();
  });

  it('goes with any commit that moves the run out of pending (graph advance, external start, MarkFailed)', async () => {
    // Prepare
    const clock = new FixedClock(freshDay());
    const { run } = await crashedStart(clock);

    // Act: pending → running, as the first commit of any kind of run makes it.
    await store.commit({ run, next: { ...run, status: 'running' } });

    // Assess
    expect(await markerOf(run)).toBeUndefined();
  });
});

describe('pending-run markers: TTL', () => {
  /** The marker item as stored, every attribute. */
  const rawMarker = async (run: Run) =>
    (
      await store.ctx.doc.send(
        new GetCommand({ TableName: store.ctx.table, Key: keys.pendingRun(run.createdAt, run.runId) }),
      )
    ).Item;

  it('carries the table’s TTL attribute, two days after its run’s creation', async () => {
    // Prepare / Act
    const clock = new FixedClock(freshDay());
    const { run } = await crashedStart(clock);

    // Assess
    const item = await rawMarker(run);
    expect(item?.[TABLE_KEYS.ttlAttribute]).toBe(Date.parse(run.createdAt) / 1000 + 2 * 86_400);
  });

  it('expires only after the sweep stopped looking at it (TTL never removes a marker it could decide)', () => {
    const reachSeconds = PENDING_SWEEP_LIMITS.lookbackHours * 3_600 + PENDING_SWEEP_LIMITS.minAgeMs / 1_000;
    expect(PENDING_MARKER_TTL_SECONDS).toBeGreaterThan(reachSeconds + 3_600);
  });

  it('is not looked at once expired but still present (TTL deletes are eventual)', async () => {
    // Prepare: a run no sweep could decide; its marker is past its TTL and DynamoDB has not deleted it yet.
    const clock = new FixedClock(freshDay());
    const { run } = await crashedStart(clock);
    clock.advance(PENDING_MARKER_TTL_SECONDS * 1_000 + MINUTE);
    expect(await rawMarker(run)).toBeDefined();
    const { executions, calls } = stepFunctions('missing');

    // Act
    const swept = await sweepPendingRuns({ store, executions, clock });

    // Assess: nothing asked, nothing ended.
    expect(swept).toMatchObject({ settled: [], started: [], moved: [], undecided: [] });
    expect(calls).toEqual([]);
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'pending', rev: run.rev });
  });
});

describe('Function: jobs-sweep handler (scheduled)', () => {
  /**
   * One scheduled invocation of the jobs-sweep handler over `storeOf(telemetry)` (DescribeExecution answering
   * "no such execution"), its log lines and EMF blobs captured.
   */
  async function scheduledSweep(clock: FixedClock, storeOf: (telemetry: Telemetry) => DynamoStore) {
    const telemetry = createTelemetry({
      POWERTOOLS_LOG_LEVEL: 'INFO',
      POWERTOOLS_METRICS_NAMESPACE: 'WfTest',
    });
    const sweepStore = storeOf(telemetry);
    const handler = createJobsSweepHandler(
      () => ({
        store: sweepStore,
        executions: stepFunctions('missing').executions,
        clock,
        ids: { next: (prefix) => `${prefix}_${Math.random().toString(36).slice(2, 14)}` },
        models: { prices: DEFAULT_PRICES, roles: { ...DEFAULT_MODEL_CONFIG.roles } },
      }),
      telemetry,
    );
    const output = captureOutput();
    try {
      await handler({ source: 'aws.events', 'detail-type': 'Scheduled Event' });
    } finally {
      output.restore();
    }
    return output;
  }

  it('counts a pending sweep that failed as a whole as undecided, and still sweeps the jobs', async () => {
    // Prepare
    const denied = Object.assign(Object.create(store) as DynamoStore, {
      listPendingRunMarkers: async () => {
        throw Object.assign(new Error('not authorized to perform: dynamodb:Query'), {
          name: 'AccessDeniedException',
        });
      },
    });

    // Act
    const output = await scheduledSweep(new FixedClock(freshDay()), () => denied);

    // Assess
    const counted = output.emf().filter((blob) => 'PendingRunsUndecided' in blob);
    expect(counted.map((blob) => blob.PendingRunsUndecided)).toEqual([1]);
    expect(output.logs().find((line) => line.message === 'pending runs not swept')).toMatchObject({
      error: { name: 'AccessDeniedException' },
    });
    expect(output.logs().find((line) => line.message === 'jobs swept')).toBeDefined();
  });

  it('ends an API start left pending, counts it, and keeps its owner off the jobs step’s log lines', async () => {
    // Prepare
    const clock = new FixedClock(freshDay());
    const { run } = await crashedStart(clock);
    clock.advance(11 * MINUTE);

    // Act
    const output = await scheduledSweep(clock, (telemetry) =>
      observeStore(store, telemetryObserver(telemetry)),
    );

    // Assess
    expect(await store.getRun(run.runId)).toMatchObject({
      status: 'failed',
      error: { name: 'ExecutionNotStarted' },
    });
    expect(await dayOf(run)).toEqual({ totalUsd: 0, reservedUsd: 0 });
    const counted = output.emf().filter((blob) => 'PendingRunsSettled' in blob);
    expect(counted.map((blob) => [blob.PendingRunsSettled, blob.PendingRunsUndecided])).toEqual([[1, 0]]);
    expect(output.logs().find((line) => line.message === 'pending runs swept')).toMatchObject({
      settled: 1,
      settledRunIds: [run.runId],
    });
    const jobsLine = output.logs().find((line) => line.message === 'jobs swept');
    expect(jobsLine).toBeDefined();
    expect(jobsLine).not.toHaveProperty('owner');
    expect(jobsLine).not.toHaveProperty('runId');
  });
});
