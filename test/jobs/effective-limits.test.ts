/**
 * A job under a grant narrowed after it was admitted (docs/jobs.md "Snapshot and live grant"): its answer
 * shows the constraints it runs under now (the lower of admitted and live, a withdrawn tool `deny`), with the
 * admitted ones as `admittedConstraints`, in REST and MCP alike; and a lowered `jobTimeoutSeconds` reaches a
 * running job at its next turn, ending it `timeout` when it is past it. On DynamoDB Local with a clock the test
 * moves (no timed waits).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJob, type JobCaller, type JobView } from '../../shared/jobs/index.ts';
import { callTool, connectMcp, bearer as mcpBearer } from '../mcp/support.ts';
import { FixedClock } from '../support/store.ts';
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

describe('A job under a grant narrowed after its admission', { timeout: 240_000 }, () => {
  let e2e: JobsStack;
  const clock = new FixedClock(new Date().toISOString());
  const owner = () => e2e.stack.apiKey;
  const caller = (clientId: string) => ({ clientId, owner: 'local', principal: `client:${clientId}` });
  const grant = (overrides: Parameters<typeof gatedGrant>[0] = {}) =>
    gatedGrant({ concurrency: 1, maxTurns: 5, maxUsdPerJob: 5, maxUsdPerDay: 50, ...overrides });
  /** A job of `clientId` waiting for approval after its first model call. */
  const waitingJob = async (clientId: string) => {
    const submitted = await call(e2e.stack, clientKey(clientId), 'POST', '/v1/jobs', {
      prompt: 'Record one line.',
    });
    expect(submitted.status).toBe(202);
    return pollJob(
      e2e.stack,
      caller(clientId),
      submitted.body.job.jobId,
      (job: JobView) => job.status === 'awaiting_approval',
    );
  };
  const narrow = async (clientId: string, overrides: Parameters<typeof gatedGrant>[0]) => {
    const narrowed = await call(e2e.stack, owner(), 'POST', `/v1/grants/${clientId}/narrow`, {
      grant: grant(overrides),
    });
    expect(narrowed.status).toBe(200);
  };

  beforeAll(async () => {
    e2e = await startJobsStack([gatedFixture()], { clientIds: ['view-bot', 'timeout-bot'], clock });
    for (const clientId of ['view-bot', 'timeout-bot'])
      expect(
        (await call(e2e.stack, owner(), 'POST', '/v1/grants', { clientId, grant: grant() })).status,
      ).toBe(201);
  }, 120_000);
  afterAll(() => e2e?.close());

  it('answers the effective constraints, and the admitted ones apart, over REST and MCP', async () => {
    // Prepare: admitted under version 1 (5 turns, $5 a job, $50 a day, an hour, current_time allowed).
    const waiting = await waitingJob('view-bot');
    const admitted = waiting.constraints;
    expect(admitted).toMatchObject({ maxTurns: 5, timeoutSeconds: 3600, grantVersion: 1 });
    expect(waiting.admittedConstraints).toBeUndefined();

    // Act: the owner takes current_time away and lowers every limit.
    await narrow('view-bot', {
      actions: ['notes_append'],
      maxTurns: 3,
      maxUsdPerJob: 0.5,
      maxUsdPerDay: 2,
      jobTimeoutSeconds: 600,
      maxAttempts: 2,
    });
    const rest = await call(e2e.stack, clientKey('view-bot'), 'GET', `/v1/jobs/${waiting.jobId}`);
    const listed = await call(e2e.stack, clientKey('view-bot'), 'GET', '/v1/jobs');
    const client = await connectMcp(`${e2e.stack.url}/mcp`, mcpBearer(clientKey('view-bot')));
    const tool = await callTool(client, 'get_agent_job', { jobId: waiting.jobId }).finally(() =>
      client.close(),
    );

    // Assess: what the core applies (the lower of each, the withdrawn tool refused), the admitted apart.
    expect(rest.status).toBe(200);
    expect(rest.body.job.constraints).toEqual({
      tools: [
        { name: 'notes_append', gate: 'needs_approval' },
        { name: 'current_time', gate: 'deny' },
      ],
      model: admitted.model,
      maxTurns: 3,
      budget: { maxUsdPerJob: 0.5, maxUsdPerDay: 2 },
      timeoutSeconds: 600,
      maxAttempts: 2,
      grantVersion: 2,
    });
    // The attempts the retry decision now counts (settle and promotion: test/jobs/live-attempts.test.ts).
    expect(admitted.maxAttempts).toBe(3);
    expect(rest.body.job.attempts).toEqual({ made: 0, max: 2, capacityWaits: 0 });
    expect(rest.body.job.admittedConstraints).toEqual(admitted);
    expect(listed.body.jobs.find((job: JobView) => job.jobId === waiting.jobId)).toEqual(rest.body.job);
    expect(tool.isError).toBeFalsy();
    expect((tool.structuredContent as { job: JobView }).job).toEqual(rest.body.job);
  });

  it('ends a running job at its next turn once past a timeout the owner lowered after it started', async () => {
    // Prepare: started under an hour's timeout, waiting for approval after its first model call.
    const waiting = await waitingJob('timeout-bot');
    const run = await e2e.stack.store.getRun(waiting.runId!);
    expect(Date.parse(run!.deadlineAt) - Date.parse(run!.createdAt)).toBe(3_600_000);

    // Act: the owner lowers the timeout to a minute; two minutes pass; the approver approves.
    await narrow('timeout-bot', { jobTimeoutSeconds: 60 });
    clock.advance(120_000);
    await approveRun(e2e, waiting.runId!);
    const ended = await pollJob(e2e.stack, caller('timeout-bot'), waiting.jobId);

    // Assess: its next turn timed it out (no second model call), well inside its old hour.
    expect(ended).toMatchObject({ status: 'failed', stopReason: 'timeout', turns: 1 });
    expect(ended.constraints.timeoutSeconds).toBe(60);
    expect((await e2e.stack.store.getRun(waiting.runId!))?.modelCalls).toBe(1);
  });
});
