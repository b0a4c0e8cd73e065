/**
 * A cancel of a job being started (its slot taken, its run being created) is honoured, never a 409: the
 * cancel is marked on the job (a write conditional on it still starting) and the start path ends it
 * `cancelled`; no run of it is left running (lifecycle.ts startJobRun, queue-store.ts endStartingJob). Each
 * interleaving of a start with the cancel, on DynamoDB Local; the executions port records starts and stops
 * (no run executes).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../shared/core/pricing.ts';
import { getGrantRecord } from '../../shared/jobs/grant-store.ts';
import {
  cancelJob,
  createGrant,
  GrantSpecSchema,
  type JobCaller,
  type JobsDeps,
  submitJob,
} from '../../shared/jobs/index.ts';
import { startJobRun } from '../../shared/jobs/lifecycle.ts';
import {
  admitJob,
  claimSlot,
  getJobRecord,
  markCancelRequested,
  nextJobNumber,
} from '../../shared/jobs/queue-store.ts';
import type { JobRecord } from '../../shared/jobs/records.ts';
import { resolveJob } from '../../shared/jobs/resolve.ts';
import { DEFAULT_MODEL_CONFIG } from '../../shared/model/resolve.ts';
import { jobIdOf } from '../../shared/schemas/job.ts';
import { getItem, keys, type StoreContext } from '../../shared/store/index.ts';
import * as z from '../../shared/zod.ts';
import { RecordingExecutions } from '../api/helpers.ts';
import { FixedClock, randomIds, testStore, uniqueOwner } from '../support/store.ts';
import { baseGrant } from './support.ts';

const models = { prices: DEFAULT_PRICES, roles: { ...DEFAULT_MODEL_CONFIG.roles } };

function harness() {
  const executions = new RecordingExecutions();
  const deps: JobsDeps = { store: testStore(), executions, clock: new FixedClock(), ids: randomIds, models };
  return { deps, executions };
}

/** A client of a fresh owner with one slot, and one of its jobs that took the slot: `starting`, no run yet. */
async function startingJob(deps: JobsDeps): Promise<{ caller: JobCaller; job: JobRecord }> {
  const owner = uniqueOwner();
  const clientId = `bot-${randomUUID().slice(0, 8)}`;
  await createGrant(
    deps,
    { owner, principal: owner },
    { clientId, grant: GrantSpecSchema.parse(baseGrant({ concurrency: 1 })) },
  );
  const grant = (await getGrantRecord(deps.store.ctx, owner, clientId))!;
  const record = grant;
  const resolved = resolveJob(record, { prompt: 'Started.', dryRun: false }, models);
  const ctx = deps.store.ctx;
  const number = await nextJobNumber(ctx, grant.grantId);
  const now = new Date(deps.clock.nowMs()).toISOString();
  const queued: JobRecord = {
    schemaVersion: 1,
    jobId: jobIdOf(grant.grantId, number),
    number,
    owner,
    clientId,
    grantId: grant.grantId,
    state: 'queued',
    prompt: 'Started.',
    requestHash: resolved.requestHash,
    constraints: resolved.constraints,
    definition: resolved.definition,
    previousRunIds: [],
    attemptsMade: 0,
    runsStarted: 0,
    capacityWaits: 0,
    cancelRequested: false,
    createdAt: now,
    updatedAt: now,
  };
  expect(await admitJob(ctx, queued, 10, 0)).toBe('admitted');
  const starting: JobRecord = { ...queued, state: 'starting' };
  expect(await claimSlot(ctx, queued, 1, starting)).toBe('claimed');
  return { caller: { clientId, owner, principal: `client:${clientId}` }, job: starting };
}

/** The run attempt 1 of `job` was created under, if any ('' when a cancel took its marker first). */
const attemptMarker = (ctx: StoreContext, job: JobRecord) =>
  getItem(ctx, keys.idempotency(job.owner, `job:${job.jobId}`, 'run-1'), z.object({ runId: z.string() }));

/** The grant's admission counter. */
const slots = async (deps: JobsDeps, grantId: string) =>
  getItem(deps.store.ctx, { pk: `GRANT#${grantId}`, sk: 'SLOTS' }, z.looseObject({ running: z.number() }));

describe('Cancel of a job being started', () => {
  it('ends a job whose run was not created yet cancelled, and no start creates its run afterwards', async () => {
    // Prepare
    const { deps, executions } = harness();
    const { caller, job } = await startingJob(deps);

    // Act: the client cancels; then a start that had read the job before the cancel goes on with it.
    const cancelled = await cancelJob(deps, caller, job.jobId);
    await startJobRun(deps, job);
    const again = await cancelJob(deps, caller, job.jobId);

    // Assess: cancelled without a run, the attempt's marker taken (no run), the slot given back; idempotent.
    expect(cancelled).toMatchObject({
      stopped: 'queued',
      job: { status: 'cancelled', stopReason: 'cancelled' },
    });
    expect(cancelled.job.runId).toBeUndefined();
    const stored = await getJobRecord(deps.store.ctx, job.grantId, job.number);
    expect(stored).toMatchObject({ state: 'ended', cancelRequested: true, runsStarted: 0 });
    expect(stored?.runId).toBeUndefined();
    expect(await attemptMarker(deps.store.ctx, job)).toEqual({ runId: '' });
    expect(executions.starts).toEqual([]);
    expect((await slots(deps, job.grantId))?.running).toBe(0);
    expect(again).toMatchObject({ stopped: 'nothing', job: { status: 'cancelled' } });
    // The freed slot runs the client's next job.
    const next = await submitJob(deps, caller, { prompt: 'Next.' });
    expect(next).toMatchObject({ job: { status: 'running' } });
  });

  it('cancels the run of a start that created it while the cancel was being marked', async () => {
    // Prepare: the cancel is marked after the start read the job (its flag still false).
    const { deps, executions } = harness();
    const { caller, job } = await startingJob(deps);
    expect(await markCancelRequested(deps.store.ctx, job, new Date(deps.clock.nowMs()).toISOString())).toBe(
      true,
    );

    // Act: that start creates the run; recording it as running without the cancel fails.
    await startJobRun(deps, job);
    const answer = await cancelJob(deps, caller, job.jobId);

    // Assess: the run was recorded with the cancel and cancelled, its execution stopped; the job cancelled.
    const stored = await getJobRecord(deps.store.ctx, job.grantId, job.number);
    expect(stored).toMatchObject({
      state: 'ended',
      final: { status: 'cancelled', stopReason: 'cancelled' },
    });
    expect((await deps.store.getRun(stored!.runId!))?.status).toBe('cancelled');
    expect(executions.starts).toHaveLength(1);
    expect(executions.stops).toHaveLength(1);
    expect((await slots(deps, job.grantId))?.running).toBe(0);
    expect(answer).toMatchObject({ stopped: 'nothing', job: { status: 'cancelled', runId: stored!.runId } });
  });

  it("cancels the run of a start that crashed after creating it, before recording it: stopped 'run'", async () => {
    // Prepare: a start whose write recording the run never lands (the process died), its run created.
    const { deps, executions } = harness();
    const { caller, job } = await startingJob(deps);
    const real = deps.store;
    const crashing = new Proxy(real, {
      get(target, property) {
        if (property !== 'ctx') {
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        }
        const send = (command: { input?: { TransactItems?: { Put?: { Item?: { sk?: string } } }[] } }) => {
          if (command.input?.TransactItems?.some((item) => item.Put?.Item?.sk?.startsWith('JOB#')))
            throw new Error('the process died');
          return target.ctx.doc.send(command as never);
        };
        return { ...target.ctx, doc: { send } };
      },
    });
    await expect(startJobRun({ ...deps, store: crashing }, job)).rejects.toThrow('the process died');
    const runId = (await attemptMarker(real.ctx, job))?.runId;
    expect(runId).toMatch(/^run_/);

    // Act
    const answer = await cancelJob(deps, caller, job.jobId);

    // Assess: the cancel found the created run through its marker, recorded it and cancelled it.
    expect(answer).toMatchObject({ stopped: 'run', job: { status: 'cancelled', runId } });
    expect((await deps.store.getRun(runId!))?.status).toBe('cancelled');
    expect(executions.stops).toHaveLength(1);
    expect((await slots(deps, job.grantId))?.running).toBe(0);
  });
});
