/**
 * Jobs waiting for their retry time never hold back a later job that may start (docs/jobs.md "Quotas and the
 * queue"): promotion reads the queue page by page past them, and `queuePosition` does not count them. On
 * DynamoDB Local, through the REST routes.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJob, type JobView } from '../../shared/jobs/index.ts';
import { sweepJobs } from '../../shared/jobs/lifecycle.ts';
import { getJobRecord } from '../../shared/jobs/queue-store.ts';
import { jobKeys } from '../../shared/jobs/records.ts';
import { DEFAULT_RETRY_POLICY } from '../../shared/jobs/retry.ts';
import type { ScriptedFixture } from '../../shared/model/index.ts';
import { parseJobId } from '../../shared/schemas/job.ts';
import {
  baseGrant,
  call,
  clientKey,
  gatedFixture,
  gatedGrant,
  type JobsStack,
  startJobsStack,
} from './support.ts';

describe('The queue past jobs waiting to retry', { timeout: 300_000 }, () => {
  let e2e: JobsStack;
  const caller = (clientId: string) => ({ clientId, owner: 'local', principal: `client:${clientId}` });
  const view = async (clientId: string, jobId: string) => getJob(e2e.stack.jobs, caller(clientId), jobId);
  const until = async (clientId: string, jobId: string, holds: (job: JobView) => boolean) => {
    let job: JobView | undefined;
    for (let i = 0; i < 2_000; i++) {
      job = await view(clientId, jobId);
      if (holds(job)) return job;
      await sleep(50);
    }
    throw new Error(`job ${jobId} did not reach the expected state: ${JSON.stringify(job)}`);
  };

  beforeAll(async () => {
    e2e = await startJobsStack(
      [gatedFixture(), { name: 'job-busy', turns: [{ error: { status: 429 } }] } as ScriptedFixture],
      {
        clientIds: ['window-bot', 'busy-bot'],
        // A capacity wait outlasts the test: the job is seen waiting.
        jobRetry: { ...DEFAULT_RETRY_POLICY, capacityWaitMs: 3_600_000 },
      },
    );
    await call(e2e.stack, e2e.stack.apiKey, 'POST', '/v1/grants', {
      clientId: 'window-bot',
      grant: gatedGrant({ concurrency: 1, maxQueued: 200 }),
    });
    await call(e2e.stack, e2e.stack.apiKey, 'POST', '/v1/grants', {
      clientId: 'busy-bot',
      grant: baseGrant({ name: 'job-busy', concurrency: 1 }),
    });
  });
  afterAll(() => e2e.close());

  it('starts the job behind more waiting retries than a page of the queue, and counts only what may start', async () => {
    // Prepare: job 1 holds the one slot; jobs 2..102 (more than one page of 100 pointers) wait to retry in 15
    // minutes, as a settled attempt queues them again (queue-store.ts releaseSlot: the job's notBefore and its
    // pointer's); job 103 may start.
    const ids: string[] = [];
    for (let i = 0; i < 103; i++) {
      const submitted = await call(e2e.stack, clientKey('window-bot'), 'POST', '/v1/jobs', {
        prompt: `Record line ${i}.`,
      });
      expect(submitted.status).toBe(202);
      ids.push(submitted.body.job.jobId);
    }
    await until('window-bot', ids[0]!, (job) => job.status === 'awaiting_approval');
    const later = new Date(Date.now() + 15 * 60_000).toISOString();
    for (const id of ids.slice(1, 102)) {
      const ref = parseJobId(id)!;
      for (const [key, retry] of [
        [jobKeys.job(ref.grantId, ref.number), true],
        [jobKeys.queued(ref.grantId, ref.number), false],
      ] as const)
        await e2e.stack.store.ctx.doc.send(
          new UpdateCommand({
            TableName: e2e.stack.store.ctx.table,
            Key: key,
            UpdateExpression: retry ? 'SET notBefore = :at, #retry = :retry' : 'SET notBefore = :at',
            ...(retry ? { ExpressionAttributeNames: { '#retry': 'retry' } } : {}),
            ExpressionAttributeValues: {
              ':at': later,
              ...(retry
                ? {
                    ':retry': { disposition: 'backoff', reason: 'ModelServerError: x', nextAttemptAt: later },
                  }
                : {}),
            },
          }),
        );
    }
    const last = ids[102]!;
    expect(await view('window-bot', last)).toMatchObject({ status: 'queued', queuePosition: 1 });
    expect(await view('window-bot', ids[1]!)).toMatchObject({ status: 'queued', queuePosition: 1 });

    // Act: the slot is given back (its client cancels job 1), then the periodic sweep.
    const cancelled = await call(e2e.stack, clientKey('window-bot'), 'DELETE', `/v1/jobs/${ids[0]}`);
    expect(cancelled.body.stopped).toBe('run');
    await sweepJobs(e2e.stack.jobs);

    // Assess: the job behind the waiting retries took the free slot; they still wait.
    const started = await until('window-bot', last, (job) => job.status !== 'queued');
    expect(started.runId).toBeDefined();
    expect(await view('window-bot', ids[101]!)).toMatchObject({
      status: 'queued',
      retry: { nextAttemptAt: later },
    });
  });

  it('writes a retry time on the queue pointer with the job, in the transaction that queues it again', async () => {
    const submitted = await call(e2e.stack, clientKey('busy-bot'), 'POST', '/v1/jobs', { prompt: 'Try.' });
    const waiting = await until('busy-bot', submitted.body.job.jobId, (job) => job.retry !== undefined);
    const behind = await call(e2e.stack, clientKey('busy-bot'), 'POST', '/v1/jobs', { prompt: 'Try again.' });

    const ref = parseJobId(waiting.jobId)!;
    const { Item: pointer } = await e2e.stack.store.ctx.doc.send(
      new (await import('@aws-sdk/lib-dynamodb')).GetCommand({
        TableName: e2e.stack.store.ctx.table,
        Key: jobKeys.queued(ref.grantId, ref.number),
        ConsistentRead: true,
      }),
    );
    const record = await getJobRecord(e2e.stack.store.ctx, ref.grantId, ref.number);
    expect(pointer?.notBefore).toBe(record?.notBefore);
    expect(pointer?.notBefore).toBe(waiting.retry?.nextAttemptAt);
    // The job behind the waiting one starts first: it is first in line, or already running.
    const next = await view('busy-bot', behind.body.job.jobId);
    expect(next.status === 'queued' ? next.queuePosition : 1).toBe(1);
  });
});
