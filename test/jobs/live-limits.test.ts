/**
 * The live grant narrows a job's limits, not only its tools (docs/jobs.md "Snapshot and live grant"): each of
 * the per-job cost ceiling, the turn cap and the day ceiling is the lower of the job's snapshot and the live
 * grant, at every turn of a running job and when a queued job starts; a model withdrawn from the grant ends a
 * queued job `denied` and a running one at its next turn. On DynamoDB Local, through the REST routes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJob, type JobCaller, type JobView } from '../../shared/jobs/index.ts';
import {
  approveRun,
  call,
  clientKey,
  gatedFixture,
  gatedGrant,
  type JobsStack,
  startJobsStack,
} from './support.ts';

const TERMINAL = ['done', 'failed', 'denied', 'cancelled'];

/** Polls a job until `until` holds (default: it ended), by count of reads; says where it stood if never. */
async function pollJob(
  stack: JobsStack['stack'],
  caller: JobCaller,
  jobId: string,
  until: (job: JobView) => boolean = (job) => TERMINAL.includes(job.status),
): Promise<JobView> {
  let job: JobView | undefined;
  for (let i = 0; i < 2_000; i++) {
    job = await getJob(stack.jobs, caller, jobId);
    if (until(job)) return job;
    await sleep(50);
  }
  throw new Error(`job ${jobId} did not reach the expected state: ${JSON.stringify(job)}`);
}

describe('Live grant limits: the lower of the snapshot and the live grant', { timeout: 240_000 }, () => {
  let e2e: JobsStack;
  const owner = () => e2e.stack.apiKey;
  const caller = (clientId: string) => ({ clientId, owner: 'local', principal: `client:${clientId}` });
  const submit = async (clientId: string, body: Record<string, unknown> = {}) => {
    const response = await call(e2e.stack, clientKey(clientId), 'POST', '/v1/jobs', {
      prompt: `Record one line (${Math.random()}).`,
      ...body,
    });
    expect(response.status).toBe(202);
    return response.body.job.jobId as string;
  };
  const narrow = async (clientId: string, overrides: Parameters<typeof gatedGrant>[0]) => {
    const narrowed = await call(e2e.stack, owner(), 'POST', `/v1/grants/${clientId}/narrow`, {
      grant: gatedGrant({ concurrency: 1, ...overrides }),
    });
    expect(narrowed.status).toBe(200);
  };
  /** Job A holds the grant's one slot, waiting for approval after its first model call; job B waits queued. */
  const slotTakenAndOneQueued = async (clientId: string, submitB: Record<string, unknown> = {}) => {
    const a = await submit(clientId);
    const waiting = await pollJob(
      e2e.stack,
      caller(clientId),
      a,
      (job) => job.status === 'awaiting_approval',
    );
    const b = await submit(clientId, submitB);
    expect((await pollJob(e2e.stack, caller(clientId), b, () => true)).status).toBe('queued');
    return { a, aRunId: waiting.runId!, b };
  };
  /** B, started once A ended, waits for approval after its first call: approve it and let it end. */
  const approveWhenWaiting = async (clientId: string, jobId: string) => {
    const waiting = await pollJob(
      e2e.stack,
      caller(clientId),
      jobId,
      (job) => job.status === 'awaiting_approval' || TERMINAL.includes(job.status),
    );
    if (waiting.status === 'awaiting_approval') await approveRun(e2e, waiting.runId!);
    return pollJob(e2e.stack, caller(clientId), jobId);
  };

  beforeAll(async () => {
    e2e = await startJobsStack([gatedFixture()], {
      clientIds: ['turns-bot', 'usd-bot', 'day-bot', 'model-bot'],
    });
    for (const clientId of ['turns-bot', 'usd-bot', 'day-bot'])
      await call(e2e.stack, owner(), 'POST', '/v1/grants', {
        clientId,
        grant: gatedGrant({ concurrency: 1, maxUsdPerJob: 5, maxUsdPerDay: 50, maxTurns: 5 }),
      });
    await call(e2e.stack, owner(), 'POST', '/v1/grants', {
      clientId: 'model-bot',
      grant: gatedGrant({ concurrency: 1, models: ['claude-sonnet-5-5', 'claude-haiku-5-5'] }),
    });
  });
  afterAll(() => e2e.close());

  it('holds a running job and a queued one to turns the owner lowered after they were accepted', async () => {
    // Prepare: both were admitted with 5 turns; the gated agent needs 2 (its call, then its answer).
    const { a, aRunId, b } = await slotTakenAndOneQueued('turns-bot');

    // Act
    await narrow('turns-bot', { maxTurns: 1, maxUsdPerJob: 5, maxUsdPerDay: 50 });
    await approveRun(e2e, aRunId);
    const endedA = await pollJob(e2e.stack, caller('turns-bot'), a);
    const endedB = await approveWhenWaiting('turns-bot', b);

    // Assess: A stops at its next turn, B never makes a second model call.
    expect(endedA).toMatchObject({ status: 'failed', stopReason: 'max_turns', turns: 1 });
    expect(endedB).toMatchObject({ status: 'failed', stopReason: 'max_turns', turns: 1 });
    const runB = await e2e.stack.store.getRun(endedB.runId!);
    expect(runB?.modelCalls).toBe(1);
  });

  it("holds a running job and a queued one to a job's cost ceiling lowered after they were accepted", async () => {
    // Prepare: a model call reserves about $0.04 here (4,096 output tokens at $10/M), under $5, over $0.01.
    const { a, aRunId, b } = await slotTakenAndOneQueued('usd-bot');

    // Act: the reviewer's narrowing ($0.01 a job, $0.02 a day, 1 turn) less the turns, so the cost decides.
    await narrow('usd-bot', { maxUsdPerJob: 0.01, maxUsdPerDay: 50, maxTurns: 5 });
    await approveRun(e2e, aRunId);
    const endedA = await pollJob(e2e.stack, caller('usd-bot'), a);
    const endedB = await pollJob(e2e.stack, caller('usd-bot'), b);

    // Assess: A's next model call and B's first are refused by the live ceiling; B never called the model.
    expect(endedA).toMatchObject({ status: 'failed', stopReason: 'budget_exceeded', turns: 1 });
    expect(endedB).toMatchObject({ status: 'failed', stopReason: 'budget_exceeded', turns: 0, costUsd: 0 });
    const audit = await e2e.stack.store.listAudit(endedB.runId!);
    expect(audit.filter((entry) => entry.type === 'budget_reserved')).toEqual([]);
    expect(audit.find((entry) => entry.type === 'budget_exceeded')?.data).toMatchObject({
      scope: 'run',
      ceilingUsd: 0.01,
    });
  });

  it("holds a running job and a queued one to the client's day ceiling lowered after they were accepted", async () => {
    const { a, aRunId, b } = await slotTakenAndOneQueued('day-bot');

    await narrow('day-bot', { maxUsdPerJob: 5, maxUsdPerDay: 0.02, maxTurns: 5 });
    await approveRun(e2e, aRunId);
    const endedA = await pollJob(e2e.stack, caller('day-bot'), a);
    const endedB = await pollJob(e2e.stack, caller('day-bot'), b);

    // Assess: the day's counter (all the client's jobs) refuses a $0.04 reservation under a $0.02 ceiling.
    expect(endedA).toMatchObject({ status: 'failed', stopReason: 'budget_exceeded', turns: 1 });
    expect(endedB).toMatchObject({ status: 'failed', stopReason: 'budget_exceeded', turns: 0, costUsd: 0 });
    for (const ended of [endedA, endedB]) {
      const audit = await e2e.stack.store.listAudit(ended.runId!);
      expect(audit.find((entry) => entry.type === 'budget_exceeded')?.data).toMatchObject({
        scope: 'day',
        ceilingUsd: 0.02,
      });
    }
  });

  it('ends a queued job whose model the owner withdrew denied, and a running one at its next turn', async () => {
    // Prepare: A (the grant's first model) waits; C asks for the same model, B for the one that stays.
    const { a, aRunId, b: c } = await slotTakenAndOneQueued('model-bot');
    const b = await submit('model-bot', { model: 'claude-haiku-5-5' });

    // Act
    await narrow('model-bot', { models: ['claude-haiku-5-5'] });
    await approveRun(e2e, aRunId);
    const endedA = await pollJob(e2e.stack, caller('model-bot'), a);
    const endedC = await pollJob(e2e.stack, caller('model-bot'), c);
    const endedB = await approveWhenWaiting('model-bot', b);

    // Assess
    expect(endedA).toMatchObject({ status: 'denied', stopReason: 'policy_denied', turns: 1 });
    expect(endedC).toMatchObject({
      status: 'denied',
      stopReason: 'policy_denied',
      turns: 0,
      error: {
        name: 'ModelWithdrawn',
        message: expect.stringContaining("'claude-sonnet-5-5' was withdrawn"),
      },
    });
    expect(endedC.runId).toBeUndefined();
    expect(endedB).toMatchObject({ status: 'done', turns: 2 });
  });
});
