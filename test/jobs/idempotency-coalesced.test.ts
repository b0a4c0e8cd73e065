/**
 * An Idempotency-Key answers its job for a week, even after the job ended (docs/jobs.md), also when the key
 * was first answered by coalescing with an identical live job: the key is remembered for that job, so a
 * retry with it never runs the task again. A new job is 202 with or without a key; the existing job 200.
 * The week holds to the second, on read and in the write's condition (DynamoDB's TTL deletes an expired item
 * only eventually: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ttl-expired-items.html).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitJob } from '../../shared/jobs/index.ts';
import { FixedClock } from '../support/store.ts';
import {
  approveRun,
  baseGrant,
  call,
  clientKey,
  gatedFixture,
  gatedGrant,
  grantClient,
  type JobsStack,
  pollJob,
  startJobsStack,
  textFixture,
} from './support.ts';

const WEEK_SECONDS = 7 * 24 * 3600;

describe('Idempotency-Key answered by coalescing', () => {
  let e2e: JobsStack;
  const caller = (clientId: string) => ({ clientId, owner: 'local', principal: `client:${clientId}` });
  const submit = (clientId: string, body: object, key?: string) =>
    call(e2e.stack, clientKey(clientId), 'POST', '/v1/jobs', body, key ? { 'Idempotency-Key': key } : {});
  const jobCount = async (clientId: string) =>
    (await call(e2e.stack, clientKey(clientId), 'GET', '/v1/jobs?limit=100')).body.jobs.length as number;

  beforeAll(async () => {
    e2e = await startJobsStack([gatedFixture(), textFixture('job-helper', 'Done.')], {
      clientIds: ['idem-bot', 'new-bot', 'week-bot'],
    });
    for (const [clientId, grant] of [
      ['idem-bot', gatedGrant()],
      ['new-bot', baseGrant()],
    ] as const) {
      const created = await call(e2e.stack, e2e.stack.apiKey, 'POST', '/v1/grants', { clientId, grant });
      expect(created.status).toBe(201);
    }
  });
  afterAll(() => e2e?.close());

  it('answers a key first answered by coalescing with that job after it ended, and runs nothing again', async () => {
    // Prepare: job 1 under key k1, waiting for approval; the same request under k2 coalesces with it.
    const body = { prompt: 'Record one line.' };
    const first = await submit('idem-bot', body, 'k1');
    const coalesced = await submit('idem-bot', body, 'k2');
    expect(coalesced.status).toBe(200);
    expect(coalesced.body).toMatchObject({ coalesced: true, job: { jobId: first.body.job.jobId } });
    const waiting = await pollJob(
      e2e.stack,
      caller('idem-bot'),
      first.body.job.jobId,
      (job) => job.status === 'awaiting_approval',
    );
    await approveRun(e2e, waiting.runId!);
    expect((await pollJob(e2e.stack, caller('idem-bot'), first.body.job.jobId)).status).toBe('done');
    const jobsBefore = await jobCount('idem-bot');

    // Act: the client retries with k2 (its first answer was lost, say).
    const retried = await submit('idem-bot', body, 'k2');

    // Assess: k2's job, ended, not a new run of the task.
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({
      coalesced: false,
      job: { jobId: first.body.job.jobId, status: 'done' },
    });
    expect(await jobCount('idem-bot')).toBe(jobsBefore);
    // And k2 is bound to that request like any key: another request with it is a conflict.
    const other = await submit('idem-bot', { prompt: 'Something else.' }, 'k2');
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({
      code: 'idempotency_conflict',
      fields: [{ path: 'Idempotency-Key' }],
    });
  });

  it('answers a new job that carries a key 202, and its repetition 200 with the same job', async () => {
    const first = await submit('new-bot', { prompt: 'Answer with a key.' }, 'new-1');
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ coalesced: false });
    await pollJob(e2e.stack, caller('new-bot'), first.body.job.jobId);

    const again = await submit('new-bot', { prompt: 'Answer with a key.' }, 'new-1');

    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      coalesced: false,
      job: { jobId: first.body.job.jobId, status: 'done' },
    });
  });

  it('honours a key for exactly a week: to its last second, then it takes a new job', async () => {
    // Prepare: a job under key w-1 at a fixed second, run to done.
    const clock = new FixedClock(new Date(Math.floor(Date.now() / 1000) * 1000).toISOString());
    const jobs = { ...e2e.stack.jobs, clock };
    const who = await grantClient(e2e.stack, 'week-bot', baseGrant());
    const request = { prompt: 'Answer once a week.' };
    const jobIdOf = async (key: string) => {
      const answer = await submitJob(jobs, who, request, { idempotencyKey: key });
      if (!('job' in answer)) throw new Error('not a job');
      return answer.job.jobId;
    };
    const firstId = await jobIdOf('w-1');
    await pollJob(e2e.stack, who, firstId);

    // Act + Assess: the last second of the week still answers job 1 (the item is still there: DynamoDB Local,
    // like DynamoDB before its TTL sweep, still holds it).
    clock.advance(WEEK_SECONDS * 1000);
    expect(await jobIdOf('w-1')).toBe(firstId);

    // One second later the key no longer holds: the same request under it is a new job.
    clock.advance(1000);
    const afterId = await jobIdOf('w-1');
    expect(afterId).not.toBe(firstId);
    await pollJob(e2e.stack, who, afterId);
  });
});
