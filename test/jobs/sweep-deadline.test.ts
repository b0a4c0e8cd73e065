/**
 * The scheduled jobs sweep has a deadline and a rotating start (docs/jobs.md, "The sweep's time"): it stops
 * before Lambda's timeout, and the next sweep goes on after the last grant fully handled (the cursor item,
 * marked conditionally before each grant and moved after it), wrapping around, so every grant is reached however
 * many there are; a sweep cut off mid-grant leaves that grant marked, and the next sweep starts after it and
 * sweeps it last, so a grant whose sweep outlasts the timeout never starves the grants after it. Against
 * DynamoDB Local, a table of its own (the cursor is one item per table).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createJobsSweepHandler } from '../../functions/jobs-sweep.ts';
import type { TurnPointer } from '../../shared/core/outcome.ts';
import { DEFAULT_PRICES } from '../../shared/core/pricing.ts';
import {
  createGrant,
  type GrantScope,
  GrantSpecSchema,
  type JobsDeps,
  SWEEP_TIME_MARGIN_MS,
  type SweepDeadline,
  type SweepProgress,
  submitJob,
  sweepJobs,
} from '../../shared/jobs/index.ts';
import { readSweepCursor } from '../../shared/jobs/sweep-cursor.ts';
import { DEFAULT_MODEL_CONFIG } from '../../shared/model/resolve.ts';
import { createTelemetry } from '../../shared/runtime/telemetry.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { RecordingExecutions } from '../api/helpers.ts';
import { captureOutput } from '../runtime/capture.ts';
import { FixedClock, randomIds, testStore } from '../support/store.ts';
import { createOwnTable } from '../support/table.ts';
import { baseGrant } from './support.ts';

/** StartExecution refused while `failing`: a submission then leaves its job `starting`, for the sweep to start. */
class SwitchedExecutions extends RecordingExecutions {
  failing = false;
  override async start(name: string, pointer: TurnPointer) {
    if (this.failing) throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    return super.start(name, pointer);
  }
}

/** Five grants (ids in sweep order), each with one job a failed start left `starting`, on a table of their own. */
async function fiveGrants() {
  const { tableName } = await createOwnTable('wf-sweep-deadline');
  const store = testStore(tableName);
  const executions = new SwitchedExecutions();
  const warnings: string[] = [];
  const deps: JobsDeps = {
    store,
    executions,
    clock: new FixedClock(),
    ids: randomIds,
    models: { prices: DEFAULT_PRICES, roles: { ...DEFAULT_MODEL_CONFIG.roles } },
    log: { warn: (message) => warnings.push(message) },
  };
  const grantIds = [1, 2, 3, 4, 5].map((n) => `grant_rotate${String(n).padStart(6, '0')}`);
  for (const [i, grantId] of grantIds.entries()) {
    const clientId = `bot-${i + 1}`;
    const ids = { next: (prefix: string) => (prefix === 'grant' ? grantId : randomIds.next(prefix)) };
    await createGrant(
      { ...deps, ids },
      { owner: 'alice', principal: 'alice' },
      { clientId, grant: GrantSpecSchema.parse(baseGrant({ concurrency: 1 })) },
    );
    executions.failing = true;
    await submitJob(
      deps,
      { clientId, owner: 'alice', principal: `client:${clientId}` },
      { prompt: 'p' },
    ).catch(() => undefined);
    executions.failing = false;
  }
  return { deps, store, executions, grantIds, warnings };
}

/** The grant of every run started so far, in start order. */
const startedGrants = (store: DynamoStore, executions: RecordingExecutions) =>
  Promise.all(executions.starts.map(async ({ pointer }) => (await store.getRun(pointer.runId))?.workflowId));

/** A scope that notes the order in which grants are swept. */
const noting =
  (order: string[]): GrantScope =>
  (grant, work) => {
    order.push(grant.grantId);
    return work();
  };

/** Resolved when a `cutOffIn` scope is cut off in that grant. */
const cutOffs = new Map<string, () => void>();
const cutOff = (grantId: string) =>
  new Promise<void>((resolve) => {
    cutOffs.set(grantId, resolve);
  });

/**
 * A scope under which the sweep is cut off (Lambda's timeout) in `grantId`, after that grant's work and before
 * the cursor's move past it: the sweep never goes on. Notes the grants swept in `order`.
 */
const cutOffIn =
  (grantId: string, order: string[] = []): GrantScope =>
  async (grant, work) => {
    order.push(grant.grantId);
    const result = await work();
    if (grant.grantId !== grantId) return result;
    cutOffs.get(grantId)?.();
    return new Promise<never>(() => {});
  };

/** A deadline with time for `grants` grants (exactly the margin left), then a millisecond short of it. */
function timeFor(grants: number): SweepDeadline & { stops: SweepProgress[] } {
  let left = grants;
  const stops: SweepProgress[] = [];
  return {
    remainingMs: () => (left-- > 0 ? SWEEP_TIME_MARGIN_MS : SWEEP_TIME_MARGIN_MS - 1),
    stoppedEarly: (progress) => stops.push(progress),
    stops,
  };
}

describe('Function: sweepJobs', () => {
  it('stops at its deadline, goes on from the cursor next time, wraps around, and reaches every grant', async () => {
    // Prepare
    const { deps, store, executions, grantIds } = await fiveGrants();
    const [g1, g2, g3, g4, g5] = grantIds as [string, string, string, string, string];
    expect(await startedGrants(store, executions)).toEqual([]);

    // Act: three sweeps with time for two grants each
    const orders: string[][] = [[], [], []];
    const deadlines = [timeFor(2), timeFor(2), timeFor(2)];
    const results: SweepProgress[] = [];
    for (const [i, deadline] of deadlines.entries())
      results.push(await sweepJobs(deps, noting(orders[i]!), deadline));

    // Assess: each went on after the last grant the one before handled; the third wrapped around
    expect(orders).toEqual([
      [g1, g2],
      [g3, g4],
      [g5, g1],
    ]);
    expect(results).toEqual([
      { grants: 5, handled: 2, promoted: 0, stoppedEarly: 'deadline', afterGrantId: g2 },
      { grants: 5, handled: 2, promoted: 0, stoppedEarly: 'deadline', afterGrantId: g4 },
      { grants: 5, handled: 2, promoted: 0, stoppedEarly: 'deadline', afterGrantId: g1 },
    ]);
    expect(deadlines.map((deadline) => deadline.stops)).toEqual(results.map((result) => [result]));
    // Every grant's job was started, each once (g1 swept twice: its job was running by then)
    expect(await startedGrants(store, executions)).toEqual([g1, g2, g3, g4, g5]);
    // A mark and a move per grant swept
    expect(await readSweepCursor(store.ctx)).toEqual({
      afterGrantId: g1,
      rev: 12,
      updatedAt: expect.any(String),
    });

    // Act: a sweep with time enough
    const order: string[] = [];
    const whole = await sweepJobs(deps, noting(order), timeFor(10));

    // Assess: every grant once, from after the cursor, and not stopped
    expect(order).toEqual([g2, g3, g4, g5, g1]);
    expect(whole).toEqual({ grants: 5, handled: 5, promoted: 0, afterGrantId: g1 });
  });

  it('starts after a grant a sweep was cut off in, and sweeps that grant last', async () => {
    // Prepare: a sweep cut off (Lambda's timeout) after g3's work, before its cursor move
    const { deps, store, executions, grantIds, warnings } = await fiveGrants();
    const [g1, g2, g3, g4, g5] = grantIds as [string, string, string, string, string];
    void sweepJobs(deps, cutOffIn(g3));
    await cutOff(g3);
    expect(await readSweepCursor(store.ctx)).toMatchObject({ afterGrantId: g2, inGrantId: g3, rev: 5 });
    expect(await startedGrants(store, executions)).toEqual([g1, g2, g3]);

    // Act
    const order: string[] = [];
    const next = await sweepJobs(deps, noting(order));

    // Assess: g4 first, g3 last (nothing to redo: its job runs); no job started twice; the mark is gone
    expect(order).toEqual([g4, g5, g1, g2, g3]);
    expect(next).toEqual({ grants: 5, handled: 5, promoted: 0, afterGrantId: g3, passedGrantId: g3 });
    expect(await startedGrants(store, executions)).toEqual([g1, g2, g3, g4, g5]);
    expect(await readSweepCursor(store.ctx)).not.toHaveProperty('inGrantId');
    expect(warnings).toEqual([
      'jobs sweep starts after a grant the last sweep did not finish; that grant is swept last',
    ]);
  });

  it('lets a grant whose sweep is cut off every time starve no grant after it', async () => {
    // Prepare: g2's sweep always outlasts the invocation
    const { deps, store, executions, grantIds } = await fiveGrants();
    const [g1, g2, g3, g4, g5] = grantIds as [string, string, string, string, string];

    // Act: two sweeps, each cut off in g2
    void sweepJobs(deps, cutOffIn(g2));
    await cutOff(g2);
    const orders: string[] = [];
    void sweepJobs(deps, cutOffIn(g2, orders));
    await cutOff(g2);

    // Assess: the second went on after g2, reached g3, g4, g5 and g1, and was cut off in g2 again
    expect(orders).toEqual([g3, g4, g5, g1, g2]);
    expect(await startedGrants(store, executions)).toEqual([g1, g2, g3, g4, g5]);
    expect(await readSweepCursor(store.ctx)).toMatchObject({ afterGrantId: g1, inGrantId: g2 });
  });

  it('stops when another sweep moved the cursor meanwhile, and leaves the cursor where that one put it', async () => {
    // Prepare: a sweep held inside its first grant while a second sweep walks them all
    const { deps, store, grantIds, warnings } = await fiveGrants();
    const g1 = grantIds[0];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const holding: GrantScope = async (_grant, work) => {
      entered();
      await held;
      return work();
    };
    const slow = sweepJobs(deps, holding);
    await inside;
    const fast = await sweepJobs(deps);

    // Act
    release();
    const overtaken = await slow;

    // Assess
    // The second found g1 marked (the first was in it), went on after it and swept it last.
    expect(fast).toEqual({ grants: 5, handled: 5, promoted: 0, afterGrantId: g1, passedGrantId: g1 });
    expect(overtaken).toEqual({ grants: 5, handled: 1, promoted: 0, stoppedEarly: 'overtaken' });
    expect(await readSweepCursor(store.ctx)).toEqual({
      afterGrantId: g1,
      rev: 11,
      updatedAt: expect.any(String),
    });
    expect(warnings).toEqual([
      'jobs sweep starts after a grant the last sweep did not finish; that grant is swept last',
      'jobs sweep overtaken: another sweep moved the cursor, this one stops',
    ]);
  });
});

describe('Function: jobs-sweep handler', () => {
  afterEach(() => vi.unstubAllEnvs());

  it("stops at the Lambda context's remaining time less the margin, and counts JobsSweepStoppedEarly", async () => {
    // Prepare
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'WfSweepTest');
    vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'wf-test');
    const { deps, store, executions } = await fiveGrants();
    const handler = createJobsSweepHandler(() => deps, createTelemetry());
    const scheduled = { source: 'aws.events', 'detail-type': 'Scheduled Event' };
    const context = (remainingMs: number) => ({
      functionName: 'jobs-sweep',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:jobs-sweep',
      memoryLimitInMB: 256,
      awsRequestId: 'req-1',
      getRemainingTimeInMillis: () => remainingMs,
    });
    const output = captureOutput();

    // Act: one invocation with less than the margin left, one with enough
    let short: unknown;
    let long: unknown;
    try {
      short = await handler(scheduled, context(SWEEP_TIME_MARGIN_MS - 1));
      long = await handler(scheduled, context(SWEEP_TIME_MARGIN_MS + 20_000));
    } finally {
      output.restore();
    }

    // Assess: the first handled no grant and was counted, the second swept all five and was not
    expect(short).toEqual({ grants: 5, handled: 0, promoted: 0, stoppedEarly: 'deadline' });
    expect(long).toMatchObject({ grants: 5, handled: 5 });
    expect(long).not.toHaveProperty('stoppedEarly');
    expect((await startedGrants(store, executions)).length).toBe(5);
    const counted = output
      .emf()
      .filter((blob) =>
        blob._aws.CloudWatchMetrics[0]?.Metrics.some((m) => m.Name === 'JobsSweepStoppedEarly'),
      );
    expect(
      counted.map((blob) => [blob._aws.CloudWatchMetrics[0]?.Namespace, blob.JobsSweepStoppedEarly]),
    ).toEqual([['WfSweepTest', 1]]);
    expect(
      output
        .logs()
        .filter((line) => line.level === 'WARN')
        .map((line) => line.message),
    ).toEqual(['jobs sweep stopped early: out of time; the next sweep goes on from here']);
  });
});
