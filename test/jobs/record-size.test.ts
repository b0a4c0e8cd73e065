/**
 * A job record holds its prompt and the agent definition its grant gives it, under DynamoDB's 400 KB item limit
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html). A prompt is capped like
 * a run's input (256 KiB as JSON, UTF-8), and a submission whose record would leave no room for what later
 * states add is a 400 naming `prompt`, with nothing queued; a record that only just fits runs to its end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DYNAMO_ITEM_LIMIT_BYTES } from '../../shared/core/item-size.ts';
import { keptRunIds, MAX_PREVIOUS_RUN_IDS } from '../../shared/jobs/lifecycle.ts';
import { getJobRecord } from '../../shared/jobs/queue-store.ts';
import { JOB_RECORD_MAX_BYTES, jobItemBytes, storedJob } from '../../shared/jobs/record-size.ts';
import type { JobRecord } from '../../shared/jobs/records.ts';
import { parseJobId } from '../../shared/schemas/job.ts';
import {
  baseGrant,
  call,
  clientKey,
  type JobsStack,
  pollJob,
  startJobsStack,
  textFixture,
} from './support.ts';

/** 300,000 bytes of system prompt: a grant may be 350,000 bytes (its jobs' first turn reserves ~$2 for it). */
const BIG_SYSTEM = '中'.repeat(100_000);

describe('job record size', () => {
  let e2e: JobsStack;
  const caller = (clientId: string) => ({ clientId, owner: 'local', principal: `client:${clientId}` });
  const submit = (clientId: string, prompt: string) =>
    call(e2e.stack, clientKey(clientId), 'POST', '/v1/jobs', { prompt });
  const listed = async (clientId: string) =>
    (await call(e2e.stack, clientKey(clientId), 'GET', '/v1/jobs?limit=100')).body.jobs.length as number;

  beforeAll(async () => {
    e2e = await startJobsStack([textFixture('job-helper', 'Done.')], { clientIds: ['big-bot', 'cjk-bot'] });
    for (const [clientId, grant] of [
      ['big-bot', baseGrant({ system: BIG_SYSTEM, concurrency: 1, maxQueued: 0, maxUsdPerJob: 100 })],
      ['cjk-bot', baseGrant()],
    ] as const) {
      const created = await call(e2e.stack, e2e.stack.apiKey, 'POST', '/v1/grants', { clientId, grant });
      expect(created.status).toBe(201);
    }
  }, 120_000);
  afterAll(() => e2e?.close());

  it('refuses a prompt over a run input (256 KiB as UTF-8 JSON) though under 100,000 characters', async () => {
    const refused = await submit('cjk-bot', '中'.repeat(100_000));

    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'validation_failed', fields: [{ path: 'prompt' }] });
    expect(refused.body.error.fields[0].message).toMatch(/262144/);
    expect(await listed('cjk-bot')).toBe(0);
  });

  it("refuses, naming prompt, a job whose record with its grant's definition would not fit, and queues nothing", async () => {
    // 200,000 bytes of prompt (under a run input's cap) and 300,000 of system prompt: a 500 KB record.
    const refused = await submit('big-bot', 'é'.repeat(100_000));

    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'validation_failed', fields: [{ path: 'prompt' }] });
    expect(refused.body.error.fields[0].message).toMatch(/shorten the prompt by at least \d+ bytes/);
    expect(await listed('big-bot')).toBe(0);
    // Nothing was taken: the one slot (no queue) is free for the next job.
    const small = await submit('big-bot', 'A small task.');
    expect(small.status).toBe(202);
    expect((await pollJob(e2e.stack, caller('big-bot'), small.body.job.jobId)).status).toBe('done');
  });

  it('runs a job whose record only just fits to done (it never sticks while growing), one byte more refused', async () => {
    // Prepare: the refusal says by how much a prompt is over; the largest prompt that fits is that much shorter.
    const probe = 'b'.repeat(100_000);
    const over = Number(
      /at least (\d+) bytes/.exec((await submit('big-bot', probe)).body.error.message)?.[1],
    );
    expect(over).toBeGreaterThan(0);
    const fitting = probe.slice(0, probe.length - over);

    // Act
    const tooBig = await submit('big-bot', `${fitting}b`);
    const submitted = await submit('big-bot', fitting);

    // Assess: one byte more is refused; the largest fitting record ran (its run id, times, tally and verdict
    // all written) to done.
    expect(tooBig.status).toBe(400);
    expect(submitted.status).toBe(202);
    const done = await pollJob(e2e.stack, caller('big-bot'), submitted.body.job.jobId);
    expect(done).toMatchObject({ status: 'done', result: { text: 'Done.' } });
    const ref = parseJobId(done.jobId)!;
    const stored = await getJobRecord(e2e.stack.store.ctx, ref.grantId, ref.number);
    expect(stored).toMatchObject({ state: 'ended', runId: done.runId });
    expect(jobItemBytes({ ...stored!, state: 'queued' })).toBeGreaterThan(JOB_RECORD_MAX_BYTES - 200);
  });

  it('leaves room, in a record admitted at its budget, for the most that its later states add', () => {
    // A record exactly at the admission budget (a 36-character run id as runtime/clock.ts makes them).
    const runId = (n: number) => `run_${String(n).padStart(32, 'f')}`;
    const now = '2026-12-02T00:00:00.000Z';
    const base: JobRecord = {
      schemaVersion: 1,
      jobId: 'job_9999999999_abcdefabcdefabcdefabcdefabcdefabcdefabcd',
      number: 9_999_999_999,
      owner: 'o'.repeat(128),
      clientId: 'c'.repeat(128),
      grantId: `grant_${'a'.repeat(40)}`,
      state: 'queued',
      prompt: '',
      requestHash: 'f'.repeat(64),
      idempotencyKey: 'k'.repeat(255),
      constraints: {
        tools: [],
        model: 'claude-sonnet-5-5',
        maxTurns: 200,
        budget: { maxUsdPerJob: 1000, maxUsdPerDay: 100_000 },
        timeoutSeconds: 3600,
        maxAttempts: 10,
        grantVersion: 1,
      },
      definition: {} as JobRecord['definition'],
      previousRunIds: [],
      attemptsMade: 0,
      runsStarted: 0,
      capacityWaits: 0,
      cancelRequested: false,
      createdAt: now,
      updatedAt: now,
    };
    const admitted = { ...base, prompt: 'p'.repeat(JOB_RECORD_MAX_BYTES - jobItemBytes(base)) };
    expect(jobItemBytes(admitted)).toBe(JOB_RECORD_MAX_BYTES);

    // Its largest later state: every attempt and capacity wait made under a retry policy of any size (the
    // record keeps the last MAX_PREVIOUS_RUN_IDS earlier run ids), a retry reason of 1,000 three-byte characters
    // (retry.ts), ended with an error of any size, every optional field set.
    const capacityWaits = 1_000_000;
    const runs = admitted.constraints.maxAttempts + capacityWaits;
    const previousRunIds = Array.from({ length: runs }, (_, n) => n + 1).reduce<string[]>(
      (kept, n) => keptRunIds(kept, runId(n)),
      [],
    );
    expect(previousRunIds).toHaveLength(MAX_PREVIOUS_RUN_IDS);
    const grown: JobRecord = {
      ...admitted,
      state: 'ended',
      runId: runId(0),
      previousRunIds,
      attemptsMade: 10,
      runsStarted: runs,
      capacityWaits,
      spentUsd: 999.123456789,
      turnsUsed: 200,
      notBefore: now,
      retry: { disposition: 'capacity', reason: '€'.repeat(1000), nextAttemptAt: now },
      cancelRequested: true,
      final: {
        status: 'cancelled',
        stopReason: 'cancelled',
        error: { name: 'E'.repeat(10_000), message: '€'.repeat(200_000) },
      },
      startedAt: now,
      endedAt: now,
      updatedAt: now,
    };

    expect(jobItemBytes(storedJob(grown))).toBeLessThanOrEqual(DYNAMO_ITEM_LIMIT_BYTES);
  });
});
