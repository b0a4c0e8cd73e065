import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, dispositionOf, type JobView } from '../../shared/jobs/index.ts';
import type { JobRecord } from '../../shared/jobs/records.ts';
import type { ScriptedFixture } from '../../shared/model/index.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { baseGrant, call, clientKey, type JobsStack, pollJob, startJobsStack } from './support.ts';

const failedRun = (name: string, overrides: Partial<Run> = {}) =>
  ({ status: 'failed', stopReason: 'error', error: { name, message: 'boom' }, ...overrides }) as Run;
const job = (overrides: Partial<JobRecord> = {}) =>
  ({
    attemptsMade: 0,
    capacityWaits: 0,
    cancelRequested: false,
    previousRunIds: [],
    ...overrides,
    constraints: { maxAttempts: 3, maxTurns: 5, budget: { maxUsdPerJob: 1 }, ...overrides.constraints },
  }) as JobRecord;

describe('Function: dispositionOf', () => {
  it.each([
    ['a rate limit waits for capacity', failedRun('ModelRateLimitedError'), job(), 0, 'capacity'],
    [
      'an overload waits for capacity',
      failedRun('ModelOverloadedError'),
      job({ attemptsMade: 2 }),
      0,
      'capacity',
    ],
    ['a server fault backs off', failedRun('ModelServerError'), job(), 0, 'backoff'],
    ['a crashed invocation backs off', failedRun('Lambda.Unknown'), job({ attemptsMade: 1 }), 0, 'backoff'],
    ['the last attempt ends the job', failedRun('ModelServerError'), job({ attemptsMade: 2 }), 0, 'final'],
    [
      'capacity waits are bounded',
      failedRun('ModelRateLimitedError'),
      job({ capacityWaits: 30 }),
      0,
      'final',
    ],
    ['a bad request is final', failedRun('ModelBadRequestError'), job(), 0, 'final'],
    ['a turn limit is final', failedRun('x', { stopReason: 'max_turns' }), job(), 0, 'final'],
    ['a run that dispatched calls is never re-run', failedRun('ModelServerError'), job(), 1, 'final'],
    ['a cancelled job is final', failedRun('ModelServerError'), job({ cancelRequested: true }), 0, 'final'],
    ['a done run is final', { status: 'done' } as Run, job(), 0, 'final'],
    [
      'a job whose cost ceiling is spent is not retried',
      failedRun('ModelServerError'),
      job({ spentUsd: 1 }),
      0,
      'final',
    ],
    [
      'a job whose turns are spent is not retried',
      failedRun('ModelServerError'),
      job({ spentUsd: 0.2, turnsUsed: 5 }),
      0,
      'final',
    ],
    [
      'a job with budget left is retried',
      failedRun('ModelServerError'),
      job({ spentUsd: 0.9, turnsUsed: 4 }),
      0,
      'backoff',
    ],
    [
      'a job with earlier attempts and no tally counts them as all spent',
      failedRun('ModelRateLimitedError'),
      job({ previousRunIds: ['run_old'] }),
      0,
      'final',
    ],
  ])('%s', (_name, run, record, dispatched, kind) => {
    expect(dispositionOf(run, record, dispatched, DEFAULT_RETRY_POLICY).kind).toBe(kind);
  });

  it('records a retry reason cut before an emoji, never inside it (the job record is stored)', () => {
    // 'ModelServerError: x' puts every emoji of the message at an odd index, so the cut at 1,000 falls inside one.
    const emoji = '\u{1F600}';
    const run = failedRun('ModelServerError', {
      error: { name: 'ModelServerError', message: `x${emoji.repeat(600)}` },
    });
    expect(dispositionOf(run, job(), 0, DEFAULT_RETRY_POLICY)).toMatchObject({
      kind: 'backoff',
      reason: `ModelServerError: x${emoji.repeat(490)}`,
    });
  });

  it('ends a job whose client cancelled it cancelled, instead of retrying its failed run', () => {
    const cancelled = job({ cancelRequested: true });
    expect(dispositionOf(failedRun('ModelServerError'), cancelled, 0, DEFAULT_RETRY_POLICY)).toEqual({
      kind: 'final',
      status: 'cancelled',
      stopReason: 'cancelled',
      note: 'not retried: the job was cancelled by its client',
    });
    // A verdict that was final anyway stands.
    expect(dispositionOf(failedRun('ModelBadRequestError'), cancelled, 0, DEFAULT_RETRY_POLICY)).toEqual({
      kind: 'final',
    });
  });

  it("counts attempts against a lower maxAttempts given (the live grant's), capacity wait or not", () => {
    const lowered = (name: string, made: number, maxAttempts: number) =>
      dispositionOf(failedRun(name), job({ attemptsMade: made }), 0, DEFAULT_RETRY_POLICY, maxAttempts);
    expect(lowered('ModelServerError', 1, 2)).toEqual({
      kind: 'final',
      note: 'gave up after 2 attempts, the most its grant now allows',
    });
    expect(lowered('ModelRateLimitedError', 1, 1)).toEqual({
      kind: 'final',
      note: 'gave up after 1 attempts, the most its grant now allows',
    });
    expect(lowered('ModelServerError', 0, 2).kind).toBe('backoff');
    // The snapshot's own figure reads as before.
    expect(lowered('ModelServerError', 2, 3)).toEqual({ kind: 'final', note: 'gave up after 3 attempts' });
  });

  it('doubles the backoff per attempt, up to its ceiling', () => {
    const delays = [0, 1, 2, 8].map((made) => {
      const disposition = dispositionOf(
        failedRun('ModelServerError'),
        job({ attemptsMade: made, constraints: { maxAttempts: 10 } as JobRecord['constraints'] }),
        0,
        DEFAULT_RETRY_POLICY,
      );
      return disposition.kind === 'backoff' ? disposition.delayMs : -1;
    });
    expect(delays).toEqual([30_000, 60_000, 120_000, 900_000]);
  });
});

/**
 * A failed attempt of `job-pricey` counts its turn-0 reservation as spent (core/end-run.ts): $0.306096 with
 * the grant's model and limits, about 0.9 of this ceiling. Three attempts before the fix: $0.918288.
 */
const PRICEY_CEILING = 0.34;

describe('Retry disposition on the local stack', () => {
  let e2e: JobsStack;
  const fails = (name: string, status: number): ScriptedFixture =>
    ({ name, turns: [{ error: { status } }] }) as ScriptedFixture;
  const caller = (clientId: string) => ({ clientId, owner: 'local', principal: `client:${clientId}` });

  beforeAll(async () => {
    e2e = await startJobsStack([fails('job-busy', 429), fails('job-broken', 500), fails('job-pricey', 500)], {
      clientIds: ['busy-bot', 'broken-bot', 'pricey-bot'],
      // Capacity waits long (the job is seen waiting), backoff short (the attempts run out in the test).
      jobRetry: { ...DEFAULT_RETRY_POLICY, capacityWaitMs: 3_600_000, backoffBaseMs: 1, backoffMaxMs: 1 },
      jobSweepIntervalMs: 100,
    });
    for (const [clientId, name] of [
      ['busy-bot', 'job-busy'],
      ['broken-bot', 'job-broken'],
    ] as const)
      await call(e2e.stack, e2e.stack.apiKey, 'POST', '/v1/grants', { clientId, grant: baseGrant({ name }) });
    await call(e2e.stack, e2e.stack.apiKey, 'POST', '/v1/grants', {
      clientId: 'pricey-bot',
      grant: baseGrant({ name: 'job-pricey', maxUsdPerJob: PRICEY_CEILING }),
    });
  });
  afterAll(() => e2e.close());

  it('waits for capacity after a rate limit without using an attempt, and says so', async () => {
    const submitted = await call(e2e.stack, clientKey('busy-bot'), 'POST', '/v1/jobs', { prompt: 'Try.' });
    const waiting = await pollJob(
      e2e.stack,
      caller('busy-bot'),
      submitted.body.job.jobId,
      (job: JobView) => job.retry !== undefined,
    );
    expect(waiting).toMatchObject({
      status: 'queued',
      queuePosition: 1,
      attempts: { made: 0, max: 3, capacityWaits: 1 },
      retry: { disposition: 'capacity', reason: expect.stringContaining('ModelRateLimitedError') },
    });
    const cancelled = await call(e2e.stack, clientKey('busy-bot'), 'DELETE', `/v1/jobs/${waiting.jobId}`);
    expect(cancelled.body).toMatchObject({ stopped: 'queued', job: { status: 'cancelled' } });
  });

  it('retries a server fault with backoff up to the limit, then ends failed with the reason', async () => {
    const submitted = await call(e2e.stack, clientKey('broken-bot'), 'POST', '/v1/jobs', { prompt: 'Try.' });
    const ended = await pollJob(e2e.stack, caller('broken-bot'), submitted.body.job.jobId);
    expect(ended).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      attempts: { made: 3, max: 3, capacityWaits: 0 },
      error: { name: 'ModelServerError', message: expect.stringContaining('gave up after 3 attempts') },
    });
    const { getJobRecord } = await import('../../shared/jobs/queue-store.ts');
    const { parseJobId } = await import('../../shared/schemas/job.ts');
    const ref = parseJobId(ended.jobId)!;
    const record = await getJobRecord(e2e.stack.store.ctx, ref.grantId, ref.number);
    expect(new Set([...record!.previousRunIds, record!.runId]).size).toBe(3);
  });

  it("keeps all of a job's attempts under its cost ceiling, then ends it budget_exceeded", async () => {
    // Prepare: each attempt fails after reserving its model call, and a failed call's reservation counts as
    // spent (core/end-run.ts): about 0.9 of the ceiling per attempt, three attempts allowed. The second
    // attempt is given what is left, too little for its first model call.
    const submitted = await call(e2e.stack, clientKey('pricey-bot'), 'POST', '/v1/jobs', { prompt: 'Try.' });

    // Act
    const ended = await pollJob(e2e.stack, caller('pricey-bot'), submitted.body.job.jobId);

    // Assess: the runs of all its attempts together cost at most the job's ceiling.
    const { getJobRecord } = await import('../../shared/jobs/queue-store.ts');
    const { parseJobId } = await import('../../shared/schemas/job.ts');
    const ref = parseJobId(ended.jobId)!;
    const record = await getJobRecord(e2e.stack.store.ctx, ref.grantId, ref.number);
    const runIds = [...new Set([...record!.previousRunIds, record!.runId!])];
    const runs = await Promise.all(runIds.map((runId) => e2e.stack.store.getRun(runId)));
    const total = runs.reduce((sum, run) => sum + (run?.costUsd ?? 0), 0);
    expect(total).toBeLessThanOrEqual(PRICEY_CEILING);
    expect(ended).toMatchObject({
      status: 'failed',
      stopReason: 'budget_exceeded',
      costUsd: Math.round(total * 1e6) / 1e6,
    });
  });
});
