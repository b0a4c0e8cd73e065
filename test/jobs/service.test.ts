import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitJob } from '../../shared/jobs/index.ts';
import { baseGrant, grantClient, type JobsStack, pollJob, startJobsStack, textFixture } from './support.ts';

describe('Service: delegated jobs', () => {
  let e2e: JobsStack;
  beforeAll(async () => {
    e2e = await startJobsStack([textFixture('job-helper', 'The answer is 42.')]);
  });
  afterAll(() => e2e.close());

  it('runs a submitted job to done and answers its result when polled', async () => {
    const caller = await grantClient(e2e.stack, 'svc-bot', baseGrant());
    const submitted = await submitJob(e2e.stack.jobs, caller, { prompt: 'What is the answer?' });
    if (!('job' in submitted)) throw new Error('not a job');
    expect(submitted.job.result).toBeUndefined();
    const job = await pollJob(e2e.stack, caller, submitted.job.jobId);
    expect(job).toMatchObject({
      status: 'done',
      stopReason: 'end_turn',
      result: { text: 'The answer is 42.' },
    });
    const run = await e2e.stack.store.getRun(job.runId!);
    expect(run?.trigger).toMatchObject({ type: 'job', clientId: 'svc-bot', jobId: job.jobId, attempt: 1 });
  });
});
