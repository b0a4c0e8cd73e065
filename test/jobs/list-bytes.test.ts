/**
 * `GET /v1/jobs` stays under Lambda's 6 MB response limit
 * (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html): each job view carries its run's
 * result (up to 64 KiB of text), so 15 results of control characters (7 bytes each once the page is the
 * `body` string of the Lambda result) pass it in one page of `limit=100`. A page keeps the views that fit;
 * following `nextToken` gives every job once, newest first (shared/jobs/view-page.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitJob } from '../../shared/jobs/index.ts';
import { encodedBytes } from '../../shared/runs/response-bytes.ts';
import { LAMBDA_RESPONSE_BYTES } from '../support/lambda-pages.ts';
import {
  baseGrant,
  call,
  clientKey,
  grantClient,
  type JobsStack,
  pollJob,
  startJobsStack,
  textFixture,
} from './support.ts';

const JOBS = 15;

describe('GET /v1/jobs with large results', () => {
  let e2e: JobsStack;
  const newestFirst: string[] = [];
  beforeAll(async () => {
    e2e = await startJobsStack([textFixture('job-helper', '\u0001'.repeat(64 * 1024))], {
      clientIds: ['big-bot'],
    });
    const caller = await grantClient(e2e.stack, 'big-bot', baseGrant({ concurrency: 2, maxQueued: JOBS }));
    for (let i = 0; i < JOBS; i++) {
      const submitted = await submitJob(e2e.stack.jobs, caller, { prompt: `Answer number ${i}.` });
      if (!('job' in submitted)) throw new Error('not a job');
      newestFirst.unshift(submitted.job.jobId);
    }
    for (const jobId of newestFirst) expect((await pollJob(e2e.stack, caller, jobId)).status).toBe('done');
  }, 120_000);
  afterAll(() => e2e?.close());

  it('gives every page within a Lambda response, and every job once', async () => {
    const sizes: number[] = [];
    const ids: string[] = [];
    let token: string | undefined;
    do {
      const query = `limit=100${token ? `&nextToken=${encodeURIComponent(token)}` : ''}`;
      const page = await call(e2e.stack, clientKey('big-bot'), 'GET', `/v1/jobs?${query}`);
      expect(page.status).toBe(200);
      sizes.push(encodedBytes(page.body));
      ids.push(...page.body.jobs.map((job: { jobId: string }) => job.jobId));
      token = page.body.nextToken;
    } while (token);
    expect(ids).toEqual(newestFirst);
    expect(sizes.length).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThan(LAMBDA_RESPONSE_BYTES);
    console.log(
      `[jobs] ${JOBS} jobs, ${sizes.length} pages, largest body as sent ${Math.max(...sizes)} bytes`,
    );
  });
});
