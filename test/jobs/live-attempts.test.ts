/**
 * A job's attempts under the live grant: `maxAttempts` is the lower of the job's snapshot and the live grant,
 * where a retry is decided (the settle of a failed run, and the promotion that would start the next attempt),
 * and the job's view shows that figure. A revoked grant ends a waiting retry `denied`; a grant read that fails
 * starts no attempt. DynamoDB Local, the jobs' own functions (no run machine: the executions port records starts).
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import { DEFAULT_PRICES } from '../../shared/core/pricing.ts';
import {
  changeGrant,
  createGrant,
  type GrantSpecInput,
  GrantSpecSchema,
  getJob,
  type JobCaller,
  type JobsDeps,
  promoteQueued,
  revokeGrant,
  settleJobOfRun,
  submitJob,
} from '../../shared/jobs/index.ts';
import { getJobRecord } from '../../shared/jobs/queue-store.ts';
import { jobKeys } from '../../shared/jobs/records.ts';
import { DEFAULT_MODEL_CONFIG } from '../../shared/model/resolve.ts';
import { parseJobId } from '../../shared/schemas/job.ts';
import { RecordingExecutions } from '../api/helpers.ts';
import { FixedClock, randomIds, testStore, uniqueOwner } from '../support/store.ts';
import { baseGrant } from './support.ts';

/** Past the longest backoff of the default policy (15 minutes): a queued retry is due. */
const PAST_BACKOFF_MS = 16 * 60_000;

function harness() {
  const executions = new RecordingExecutions();
  const clock = new FixedClock();
  const deps: JobsDeps = {
    store: testStore(),
    executions,
    clock,
    ids: randomIds,
    models: { prices: DEFAULT_PRICES, roles: { ...DEFAULT_MODEL_CONFIG.roles } },
  };
  return { deps, executions, clock };
}

/** A fresh owner's client with one slot, a grant of `maxAttempts` 3, and one job running its first attempt. */
async function runningJob(deps: JobsDeps) {
  const owner = uniqueOwner();
  const clientId = `bot-${randomUUID().slice(0, 8)}`;
  const spec: GrantSpecInput = baseGrant({ concurrency: 1, maxAttempts: 3 });
  const grant = await createGrant(
    deps,
    { owner, principal: owner },
    { clientId, grant: GrantSpecSchema.parse(spec) },
  );
  const caller: JobCaller = { clientId, owner, principal: `client:${clientId}` };
  const submitted = await submitJob(deps, caller, { prompt: 'Try.' });
  if ('dryRun' in submitted) throw new Error('not a dry run');
  expect(submitted.job).toMatchObject({ status: 'running', attempts: { made: 0, max: 3 } });
  const lower = (maxAttempts: number) =>
    changeGrant(deps, { owner, principal: owner }, clientId, 'narrow', {
      grant: GrantSpecSchema.parse({ ...spec, maxAttempts }),
    });
  const ref = { owner, grantId: grant.grantId, clientId };
  return { caller, jobId: submitted.job.jobId, lower, ref, owner, clientId };
}

/** Runs `act` with every read of `owner`'s grant of `clientId` failing (a throttled or failed DynamoDB read). */
async function withGrantReadFault<T>(deps: JobsDeps, owner: string, clientId: string, act: () => Promise<T>) {
  const { doc } = deps.store.ctx;
  const send = doc.send.bind(doc);
  const head = jobKeys.grantHead(owner, clientId);
  const faulty = (command: unknown, ...rest: unknown[]) => {
    const key = command instanceof GetCommand ? command.input.Key : undefined;
    if (key?.pk === head.pk && key?.sk === head.sk) throw new Error('ProvisionedThroughputExceededException');
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  };
  doc.send = faulty as typeof doc.send;
  try {
    return await act();
  } finally {
    doc.send = send as typeof doc.send;
  }
}

/** Fails the job's current run with a transient model error, as MarkFailed does; the job is not settled yet. */
async function failRun(deps: JobsDeps, caller: JobCaller, jobId: string): Promise<string> {
  const runId = (await getJob(deps, caller, jobId)).runId!;
  const run = await deps.store.getRun(runId);
  if (!run) throw new Error(`no run ${runId}`);
  await deps.store.commit({ run, next: { ...run, status: 'running' } });
  await markRunFailed(deps, {
    runId,
    error: { name: 'ModelServerError', message: 'the model server failed' },
  });
  return runId;
}

/** Fails the job's current run and settles the job, as the run-ended event does. */
async function failAttempt(deps: JobsDeps, caller: JobCaller, jobId: string) {
  await settleJobOfRun(deps, await failRun(deps, caller, jobId));
}

describe('jobs: maxAttempts lowered on the live grant', () => {
  it('ends a failed attempt for good, not queued again, when the lowered grant leaves it none', async () => {
    const { deps, executions } = harness();
    const { caller, jobId, lower } = await runningJob(deps);
    await lower(1);
    const starts = executions.starts.length;

    await failAttempt(deps, caller, jobId);

    const job = await getJob(deps, caller, jobId);
    expect(job).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      attempts: { made: 1, max: 1 },
      constraints: { maxAttempts: 1 },
      admittedConstraints: { maxAttempts: 3 },
    });
    expect(job.retry).toBeUndefined();
    expect(job.error?.message).toContain('gave up after 1 attempts, the most its grant now allows');
    expect(executions.starts.length).toBe(starts);
  });

  it('ends a retry queued before the grant was lowered, without starting its next attempt', async () => {
    const { deps, executions, clock } = harness();
    const { caller, jobId, lower, ref } = await runningJob(deps);
    await failAttempt(deps, caller, jobId);
    expect(await getJob(deps, caller, jobId)).toMatchObject({
      status: 'queued',
      attempts: { made: 1, max: 3 },
      retry: { disposition: 'backoff' },
    });

    // The owner lowers the grant while the retry waits: the view shows the figure the promotion holds it to.
    await lower(1);
    expect(await getJob(deps, caller, jobId)).toMatchObject({
      status: 'queued',
      attempts: { made: 1, max: 1 },
      constraints: { maxAttempts: 1 },
      admittedConstraints: { maxAttempts: 3 },
    });
    const starts = executions.starts.length;
    clock.advance(PAST_BACKOFF_MS);

    expect(await promoteQueued(deps, ref)).toBe(0);

    const job = await getJob(deps, caller, jobId);
    expect(job).toMatchObject({ status: 'failed', stopReason: 'error', attempts: { made: 1, max: 1 } });
    expect(job.error).toMatchObject({ name: 'AttemptsSpent' });
    expect(job.error?.message).toContain('ModelServerError');
    expect(job.error?.message).toContain('not retried: gave up after 1 attempts');
    expect(executions.starts.length).toBe(starts);
    const { grantId, number } = parseJobId(jobId)!;
    expect(await getJobRecord(deps.store.ctx, grantId, number)).toMatchObject({
      state: 'ended',
      runsStarted: 1,
    });
  });

  it('still retries while the lowered grant leaves an attempt, and stops at the lowered figure', async () => {
    const { deps, executions, clock } = harness();
    const { caller, jobId, lower, ref } = await runningJob(deps);
    await lower(2);
    await failAttempt(deps, caller, jobId);
    clock.advance(PAST_BACKOFF_MS);
    const starts = executions.starts.length;

    expect(await promoteQueued(deps, ref)).toBe(1);
    expect(executions.starts.length).toBe(starts + 1);
    expect(await getJob(deps, caller, jobId)).toMatchObject({
      status: 'running',
      attempts: { made: 1, max: 2 },
    });

    // The second attempt fails too: under the admitted 3 it would be queued again; under the grant's 2 it ends.
    await failAttempt(deps, caller, jobId);
    const job = await getJob(deps, caller, jobId);
    expect(job).toMatchObject({ status: 'failed', attempts: { made: 2, max: 2 } });
    expect(job.error?.message).toContain('gave up after 2 attempts, the most its grant now allows');
  });

  it('ends a waiting retry denied when the grant is revoked', async () => {
    const { deps, executions } = harness();
    const { caller, jobId, ref, owner, clientId } = await runningJob(deps);
    await failAttempt(deps, caller, jobId);
    await revokeGrant(deps, { owner, principal: owner }, clientId);
    const starts = executions.starts.length;

    await promoteQueued(deps, ref);

    const { grantId, number } = parseJobId(jobId)!;
    expect(await getJobRecord(deps.store.ctx, grantId, number)).toMatchObject({
      state: 'ended',
      runsStarted: 1,
      final: { status: 'denied', stopReason: 'policy_denied', error: { name: 'GrantRevoked' } },
    });
    expect(executions.starts.length).toBe(starts);
  });

  it('starts no attempt when the grant cannot be read (fail closed), and retries once it can', async () => {
    const { deps, executions, clock } = harness();
    const { caller, jobId, ref, owner, clientId } = await runningJob(deps);
    await failAttempt(deps, caller, jobId);
    clock.advance(PAST_BACKOFF_MS);
    const starts = executions.starts.length;
    await expect(withGrantReadFault(deps, owner, clientId, () => promoteQueued(deps, ref))).rejects.toThrow(
      'ProvisionedThroughputExceededException',
    );
    const { grantId, number } = parseJobId(jobId)!;
    expect(await getJobRecord(deps.store.ctx, grantId, number)).toMatchObject({
      state: 'queued',
      runsStarted: 1,
    });
    expect(executions.starts.length).toBe(starts);

    expect(await promoteQueued(deps, ref)).toBe(1);
    expect(executions.starts.length).toBe(starts + 1);
  });

  it('does not queue a retry when the settle cannot read the grant; a later settle decides it', async () => {
    const { deps, executions } = harness();
    const { caller, jobId, lower, owner, clientId } = await runningJob(deps);
    await lower(1);
    const starts = executions.starts.length;

    const runId = await failRun(deps, caller, jobId);

    await expect(
      withGrantReadFault(deps, owner, clientId, () => settleJobOfRun(deps, runId)),
    ).rejects.toThrow('ProvisionedThroughputExceededException');

    const { grantId, number } = parseJobId(jobId)!;
    const unsettled = await getJobRecord(deps.store.ctx, grantId, number);
    expect(unsettled).toMatchObject({ state: 'running', attemptsMade: 0 });
    expect(unsettled?.retry).toBeUndefined();

    await settleJobOfRun(deps, runId);
    expect(await getJob(deps, caller, jobId)).toMatchObject({
      status: 'failed',
      attempts: { made: 1, max: 1 },
    });
    expect(executions.starts.length).toBe(starts);
  });
});
