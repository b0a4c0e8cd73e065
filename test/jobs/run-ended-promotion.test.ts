/**
 * Prompt promotion on AWS: when a run execution ends, Step Functions' status-change event invokes the sweep
 * function (the RunEnded rule, infra/constructs/jobs-sweep.ts), which settles that run's job and starts the
 * next queued job of its grant at once, instead of a queued job waiting up to a minute for the scheduled
 * sweep. Driven through the real handler on DynamoDB Local; the executions port records the starts.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createJobsSweepHandler } from '../../functions/jobs-sweep.ts';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import { DEFAULT_PRICES } from '../../shared/core/pricing.ts';
import {
  cancelJob,
  createGrant,
  GrantSpecSchema,
  getJob,
  type JobCaller,
  type JobsDeps,
  submitJob,
  sweepRequestOf,
} from '../../shared/jobs/index.ts';
import { getJobRecord, markCancelRequested, releaseSlot } from '../../shared/jobs/queue-store.ts';
import { DEFAULT_MODEL_CONFIG } from '../../shared/model/resolve.ts';
import { handlerTelemetry } from '../../shared/runtime/telemetry.ts';
import { parseJobId } from '../../shared/schemas/job.ts';
import { RecordingExecutions } from '../api/helpers.ts';
import { FixedClock, randomIds, testStore, uniqueOwner } from '../support/store.ts';
import { baseGrant } from './support.ts';

function harness() {
  const executions = new RecordingExecutions();
  const deps: JobsDeps = {
    store: testStore(),
    executions,
    clock: new FixedClock(),
    ids: randomIds,
    models: { prices: DEFAULT_PRICES, roles: { ...DEFAULT_MODEL_CONFIG.roles } },
  };
  return { deps, executions, handler: createJobsSweepHandler(() => deps, handlerTelemetry()) };
}

/** A client of a fresh owner with one slot, and two jobs: the first running, the second queued behind it. */
async function busyClient(deps: JobsDeps) {
  const owner = uniqueOwner();
  const clientId = `bot-${randomUUID().slice(0, 8)}`;
  await createGrant(
    deps,
    { owner, principal: owner },
    { clientId, grant: GrantSpecSchema.parse(baseGrant({ concurrency: 1 })) },
  );
  const caller: JobCaller = { clientId, owner, principal: `client:${clientId}` };
  const first = await submitJob(deps, caller, { prompt: 'first' });
  const second = await submitJob(deps, caller, { prompt: 'second' });
  if ('dryRun' in first || 'dryRun' in second) throw new Error('not a dry run');
  expect([first.job.status, second.job.status]).toEqual(['running', 'queued']);
  return { caller, first: first.job, second: second.job };
}

/** Ends a job's run as the run machine's last task does (status done), before its execution ends. */
async function endRun(deps: JobsDeps, runId: string) {
  const run = await deps.store.getRun(runId);
  if (!run) throw new Error(`no run ${runId}`);
  const running = await deps.store.commit({ run, next: { ...run, status: 'running' } });
  await deps.store.commit({
    run: running,
    next: { ...running, status: 'done', endedAt: new Date(deps.clock.nowMs()).toISOString() },
  });
}

/** Ends a job's run `failed` with a transient model error as MarkFailed does; its job is not settled yet. */
async function failRun(deps: JobsDeps, runId: string) {
  const run = await deps.store.getRun(runId);
  if (!run) throw new Error(`no run ${runId}`);
  await deps.store.commit({ run, next: { ...run, status: 'running' } });
  await markRunFailed(deps, {
    runId,
    error: { name: 'ModelServerError', message: 'the model server failed' },
  });
}

/** The event Step Functions sends when an execution of the run machine ends (its input: the run pointer). */
const runEnded = (runId: string, status = 'SUCCEEDED') => ({
  version: '0',
  source: 'aws.states',
  'detail-type': 'Step Functions Execution Status Change',
  detail: {
    executionArn: `arn:aws:states:eu-west-1:123456789012:execution:wf-runs:${runId}`,
    stateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:wf-runs',
    name: runId,
    status,
    input: JSON.stringify({ runId, turn: 3, segmentStartTurn: 0 }),
    inputDetails: { included: true },
  },
});

const scheduled = { source: 'aws.events', 'detail-type': 'Scheduled Event', detail: {} };

describe('Function: jobs-sweep handler, on a run-ended event', () => {
  it("settles the ended run's job and starts the next queued job at once", async () => {
    const { deps, executions, handler } = harness();
    const { caller, first, second } = await busyClient(deps);
    const runId = (await getJob(deps, caller, first.jobId)).runId!;
    await endRun(deps, runId);
    const starts = executions.starts.length;

    await handler(runEnded(runId));

    expect((await getJob(deps, caller, first.jobId)).status).toBe('done');
    expect((await getJob(deps, caller, second.jobId)).status).toBe('running');
    expect(executions.starts.length).toBe(starts + 1);
  });

  it("touches only that run's grant: another grant's backlog waits for the scheduled sweep", async () => {
    const { deps, handler } = harness();
    const mine = await busyClient(deps);
    const other = await busyClient(deps);
    const mineRun = (await getJob(deps, mine.caller, mine.first.jobId)).runId!;
    const otherRun = (await getJob(deps, other.caller, other.first.jobId)).runId!;
    await endRun(deps, mineRun);
    await endRun(deps, otherRun);

    await handler(runEnded(mineRun));
    expect((await getJob(deps, other.caller, other.second.jobId)).status).toBe('queued');

    await handler(scheduled);
    expect((await getJob(deps, other.caller, other.second.jobId)).status).toBe('running');
  });

  it('leaves a job whose run has not ended (a ContinueAsNew segment) as it is', async () => {
    const { deps, executions, handler } = harness();
    const { caller, first, second } = await busyClient(deps);
    const runId = (await getJob(deps, caller, first.jobId)).runId!;
    const starts = executions.starts.length;

    await handler(runEnded(runId));

    expect((await getJob(deps, caller, first.jobId)).status).toBe('running');
    expect((await getJob(deps, caller, second.jobId)).status).toBe('queued');
    expect(executions.starts.length).toBe(starts);
  });
});

describe('Function: cancelJob, racing the settle of a failed run', () => {
  it('ends the job cancelled, never queued for a retry, when its run failed transiently before the cancel', async () => {
    const { deps, executions, handler } = harness();
    const { caller, first, second } = await busyClient(deps);
    const runId = (await getJob(deps, caller, first.jobId)).runId!;
    await failRun(deps, runId); // a retryable failure; its job is not settled yet
    const starts = executions.starts.length;

    const cancelled = await cancelJob(deps, caller, first.jobId);
    await handler(runEnded(runId, 'FAILED')); // the settle that was racing the cancel
    await handler(scheduled);

    expect(cancelled.job).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    const job = await getJob(deps, caller, first.jobId);
    expect(job).toMatchObject({ status: 'cancelled', stopReason: 'cancelled', runId });
    expect(job.error?.message).toContain('not retried: the job was cancelled by its client');
    expect(job.retry).toBeUndefined();
    // Its slot went to the queued second job; the cancelled one holds none and never starts again.
    expect((await getJob(deps, caller, second.jobId)).status).toBe('running');
    expect(executions.starts.length).toBe(starts + 1);
  });
});

describe('Function: releaseSlot, after a cancel was marked', () => {
  it('writes nothing for a settle that read the job before the mark (it would have dropped the cancel)', async () => {
    const { deps } = harness();
    const { caller, first } = await busyClient(deps);
    const { grantId, number } = parseJobId(first.jobId)!;
    const before = (await getJobRecord(deps.store.ctx, grantId, number))!;
    await failRun(deps, (await getJob(deps, caller, first.jobId)).runId!);

    expect(await markCancelRequested(deps.store.ctx, before, before.updatedAt)).toBe(true);
    const requeued = await releaseSlot(
      deps.store.ctx,
      { ...before, state: 'queued' },
      { state: 'running', runId: before.runId! },
    );

    expect(requeued).toBe(false);
    const after = await getJobRecord(deps.store.ctx, grantId, number);
    expect(after).toMatchObject({ state: 'running', cancelRequested: true });
  });
});

describe('Function: sweepRequestOf', () => {
  it.each<[string, unknown]>([
    ['the scheduled event', scheduled],
    ['no event', undefined],
    ['a status change whose input is not JSON', { ...runEnded('run_abc'), detail: { input: '{' } }],
    ['a status change whose input has no run id', { ...runEnded('run_abc'), detail: { input: '{}' } }],
    ['a status change from another source', { ...runEnded('run_abc'), source: 'com.example' }],
  ])('sweeps every grant for %s (the safe fallback)', (_name, event) => {
    expect(sweepRequestOf(event)).toEqual({ kind: 'all' });
  });

  it("reads the run id from a status change's execution input", () => {
    const runId = 'run_0123456789abcdef0123456789abcdef';
    expect(sweepRequestOf(runEnded(runId, 'FAILED'))).toEqual({ kind: 'run_ended', runId });
  });
});
