/**
 * A job record keeps its last MAX_PREVIOUS_RUN_IDS earlier runs (lifecycle.ts), however many retries a retry
 * policy allows: a job retried past that, with the grant's retry and spend limits at their maximum, keeps the
 * last 50 and still counts every run it started. Settled as Deliver/MarkFailed settle on DynamoDB Local; the
 * executions port records the starts (no run executes: each is failed by the test, a rate limit every time).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import { DEFAULT_PRICES } from '../../shared/core/pricing.ts';
import {
  createGrant,
  DEFAULT_RETRY_POLICY,
  GrantSpecSchema,
  getJob,
  type JobsDeps,
  submitJob,
} from '../../shared/jobs/index.ts';
import { MAX_PREVIOUS_RUN_IDS, settleJobOfRun } from '../../shared/jobs/lifecycle.ts';
import { getJobRecord } from '../../shared/jobs/queue-store.ts';
import { JOB_RECORD_MAX_BYTES, jobItemBytes } from '../../shared/jobs/record-size.ts';
import { DEFAULT_MODEL_CONFIG } from '../../shared/model/resolve.ts';
import { parseJobId } from '../../shared/schemas/job.ts';
import { RecordingExecutions } from '../api/helpers.ts';
import { FixedClock, randomIds, testStore, uniqueOwner } from '../support/store.ts';
import { baseGrant } from './support.ts';

/** More capacity waits than the record keeps run ids. */
const CAPACITY_WAITS = MAX_PREVIOUS_RUN_IDS + 2;

describe('previousRunIds under a retry policy past its bound', () => {
  it('keeps the last 50 run ids of a job that ran 53 times, and its record stays under its size check', async () => {
    // Prepare: capacity waits at once, more of them than the record keeps; the grant's limits at their maximum.
    const deps: JobsDeps = {
      store: testStore(),
      executions: new RecordingExecutions(),
      clock: new FixedClock(),
      ids: randomIds,
      models: { prices: DEFAULT_PRICES, roles: { ...DEFAULT_MODEL_CONFIG.roles } },
      retry: { ...DEFAULT_RETRY_POLICY, capacityWaitMs: 0, maxCapacityWaits: CAPACITY_WAITS },
    };
    const owner = uniqueOwner();
    const clientId = `bot-${randomUUID().slice(0, 8)}`;
    const grant = baseGrant({ maxAttempts: 10, maxTurns: 200, maxUsdPerJob: 1000 });
    await createGrant(deps, { owner, principal: owner }, { clientId, grant: GrantSpecSchema.parse(grant) });
    const caller = { clientId, owner, principal: `client:${clientId}` };
    const submitted = await submitJob(deps, caller, { prompt: 'Try.' });
    if ('dryRun' in submitted) throw new Error('not a dry run');
    const ref = parseJobId(submitted.job.jobId)!;

    // Act: every run fails with a rate limit, as MarkFailed ends it; each settle starts the next run.
    for (let runs = 0; runs <= CAPACITY_WAITS; runs++) {
      const job = await getJobRecord(deps.store.ctx, ref.grantId, ref.number);
      expect(job).toMatchObject({ state: 'running', runsStarted: runs + 1 });
      const run = await deps.store.getRun(job!.runId!);
      await deps.store.commit({ run: run!, next: { ...run!, status: 'running' } });
      await markRunFailed(deps, {
        runId: job!.runId!,
        error: { name: 'ModelRateLimitedError', message: 'rate limited' },
      });
      await settleJobOfRun(deps, job!.runId!);
    }

    // Assess: it gave up after its capacity waits; the record holds the newest 50 earlier runs, its last run
    // apart, counts all 53, and fits.
    const ended = await getJob(deps, caller, submitted.job.jobId);
    expect(ended).toMatchObject({
      status: 'failed',
      attempts: { capacityWaits: CAPACITY_WAITS },
      error: { message: expect.stringContaining(`gave up after ${CAPACITY_WAITS} capacity waits`) },
    });
    const record = (await getJobRecord(deps.store.ctx, ref.grantId, ref.number))!;
    expect(record).toMatchObject({ state: 'ended', runsStarted: CAPACITY_WAITS + 1 });
    expect(record.previousRunIds).toHaveLength(MAX_PREVIOUS_RUN_IDS);
    const attempts = await Promise.all(
      [...record.previousRunIds, record.runId!].map(async (runId) => {
        const run = await deps.store.getRun(runId);
        return run?.trigger.type === 'job' ? run.trigger.attempt : -1;
      }),
    );
    // The two oldest dropped: attempts 3 to 52 kept, then the last, 53.
    expect(attempts).toEqual(Array.from({ length: MAX_PREVIOUS_RUN_IDS + 1 }, (_, n) => n + 3));
    expect(jobItemBytes(record)).toBeLessThanOrEqual(JOB_RECORD_MAX_BYTES);
  }, 120_000);
});
