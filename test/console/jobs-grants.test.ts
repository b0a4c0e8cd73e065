/**
 * The console's jobs and grants pages on a local stack: the owner sees each client's grant (allowed actions
 * with their gates, limits, expiry, revoked) and its jobs (status, client, budget use, run link) through
 * `GET /v1/grants/{clientId}/jobs`; another owner sees none of it, and the client itself cannot use that owner
 * route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitJob } from '../../shared/jobs/index.ts';
import {
  baseGrant,
  call,
  clientKey,
  grantClient,
  type JobsStack,
  pollJob,
  startJobsStack,
  textFixture,
} from '../jobs/support.ts';
import { type ConsoleSession, consoleSession, textOf } from './support.ts';

const OWNER_KEY_B = `wfl_owner_b_${'b'.repeat(24)}`;

describe('console: jobs and grants', () => {
  let e2e: JobsStack;
  let jobId: string;
  let runId: string;
  let alice: ConsoleSession;
  let bob: ConsoleSession;

  beforeAll(async () => {
    e2e = await startJobsStack([textFixture('job-helper', 'The answer is 42.')], {
      clientIds: ['svc-bot'],
      ownerKeys: { [OWNER_KEY_B]: 'bob' },
    });
    const caller = await grantClient(
      e2e.stack,
      'svc-bot',
      baseGrant({
        gates: { notes_append: { mode: 'needs_approval', approvers: ['editor@example.com'] } },
        maxUsdPerDay: 5,
      }),
    );
    const submitted = await submitJob(e2e.stack.jobs, caller, { prompt: 'What is the answer?' });
    if (!('job' in submitted)) throw new Error('not a job');
    const job = await pollJob(e2e.stack, caller, submitted.job.jobId);
    jobId = job.jobId;
    runId = job.runId!;
    alice = await consoleSession(e2e.stack.url, e2e.stack.apiKey);
    bob = await consoleSession(e2e.stack.url, OWNER_KEY_B);
  }, 120_000);
  afterAll(() => e2e.close());

  it("lists the grant's jobs for its owner; another owner's and a missing client id answer alike", async () => {
    const own = await call(e2e.stack, e2e.stack.apiKey, 'GET', '/v1/grants/svc-bot/jobs');
    const foreign = await call(e2e.stack, OWNER_KEY_B, 'GET', '/v1/grants/svc-bot/jobs');
    const missing = await call(e2e.stack, OWNER_KEY_B, 'GET', '/v1/grants/nobody-bot/jobs');
    const asClient = await call(e2e.stack, clientKey('svc-bot'), 'GET', '/v1/grants/svc-bot/jobs');

    expect(own.status).toBe(200);
    expect(own.body.jobs).toEqual([expect.objectContaining({ jobId, runId, status: 'done' })]);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(missing.status).toBe(404);
    expect(asClient.status).toBe(403);
  });

  it('shows the owner the job with its status, client, budget use and run link', async () => {
    const page = await alice.get('/console/jobs');
    const chosen = await alice.get('/console/jobs?client=svc-bot');

    expect(page.status).toBe(200);
    const row = /<tr data-job="[^"]+">[\s\S]*?<\/tr>/.exec(page.html)?.[0] ?? '';
    expect(row).toContain(jobId);
    expect(row).toContain(`href="/console/runs/${runId}"`);
    expect(textOf(row)).toMatch(/svc-bot done end_turn \$0\.\d{6} of \$1\.000000 \(\d+%\) 1 of 5/);
    expect(chosen.html).toContain(jobId);
  });

  it("answers a forged page token for a client's jobs with the API's 400, not a 502", async () => {
    const forged = Buffer.from(JSON.stringify({ pk: 'JOB#someone-else', sk: 'JOB' })).toString('base64url');

    const page = await alice.get(`/console/jobs?client=svc-bot&after=${forged}`);

    expect(page.status).toBe(400);
    expect(textOf(page.html)).toContain('The API answered HTTP 400 (validation_failed)');
    expect(page.html).not.toContain(jobId);
  });

  it('shows the owner the grant: allowed actions with gates, limits, expiry, revoked', async () => {
    const page = await alice.get('/console/grants');

    expect(page.status).toBe(200);
    const row = textOf(/<tr data-client="svc-bot"[\s\S]*?<\/tr>/.exec(page.html)?.[0] ?? '');
    expect(row).toContain('current_time (allow) notes_append (needs_approval)');
    expect(row).toContain('$1 per job; $5 per day; 5 turns; 2 at once, 10 queued');
    expect(row).toContain('never (until revoked) no');
  });

  it('shows another owner none of the grants or jobs, even when asked for the client by name', async () => {
    const jobs = await bob.get('/console/jobs');
    const named = await bob.get('/console/jobs?client=svc-bot');
    const grants = await bob.get('/console/grants');
    const run = await bob.get(`/console/runs/${runId}`);

    for (const page of [jobs, named, grants]) {
      expect(page.status).toBe(200);
      expect(page.html).not.toContain('svc-bot');
      expect(page.html).not.toContain(jobId);
    }
    expect(textOf(jobs.html)).toContain('No jobs.');
    expect(textOf(grants.html)).toContain('No client has a grant');
    expect(run.status).toBe(404);
  });
});
