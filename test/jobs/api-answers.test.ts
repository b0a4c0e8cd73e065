/**
 * Answers of the job routes and tools that a client acts on: a page token it did not get from this listing is
 * a 400 naming `nextToken` (never a 500 from the query), and a cancel of a job between two states (its slot
 * taken, its run not created) cancels it, in REST and MCP alike (never a 409, nor `not_granted`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepJobs } from '../../shared/jobs/index.ts';
import { admitJob, claimSlot, getJobRecord, nextJobNumber } from '../../shared/jobs/queue-store.ts';
import type { JobRecord } from '../../shared/jobs/records.ts';
import { definitionFor } from '../../shared/jobs/resolve.ts';
import { GrantSpecSchema } from '../../shared/jobs/schemas.ts';
import { jobIdOf } from '../../shared/schemas/job.ts';
import { bearer, callTool, connectMcp } from '../mcp/support.ts';
import {
  baseGrant,
  call,
  clientKey,
  type JobsStack,
  pollJob,
  startJobsStack,
  textFixture,
} from './support.ts';

const token = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');

describe('job answers: page tokens, a cancel mid-change', () => {
  let e2e: JobsStack;
  const grants: Record<string, { grantId: string; version: number }> = {};
  const caller = (clientId: string) => ({ clientId, owner: 'local', principal: `client:${clientId}` });

  beforeAll(async () => {
    e2e = await startJobsStack([textFixture('job-helper', 'Done.')], {
      clientIds: ['page-bot', 'busy-bot', 'other-bot'],
    });
    for (const clientId of ['page-bot', 'busy-bot', 'other-bot']) {
      const grant = baseGrant({ concurrency: 1 });
      const created = await call(e2e.stack, e2e.stack.apiKey, 'POST', '/v1/grants', { clientId, grant });
      expect(created.status).toBe(201);
      grants[clientId] = created.body.grant;
    }
  }, 120_000);
  afterAll(() => e2e?.close());

  describe('nextToken', () => {
    const page = (t: string) =>
      call(e2e.stack, clientKey('page-bot'), 'GET', `/v1/jobs?limit=1&nextToken=${encodeURIComponent(t)}`);

    it('pages with the tokens the listing issues', async () => {
      for (const prompt of ['one', 'two']) {
        const submitted = await call(e2e.stack, clientKey('page-bot'), 'POST', '/v1/jobs', { prompt });
        await pollJob(e2e.stack, caller('page-bot'), submitted.body.job.jobId);
      }
      const first = await call(e2e.stack, clientKey('page-bot'), 'GET', '/v1/jobs?limit=1');
      const second = await page(first.body.nextToken);
      expect(second.status).toBe(200);
      expect(second.body.jobs).toHaveLength(1);
      expect(second.body.jobs[0].jobId).not.toBe(first.body.jobs[0].jobId);
    });

    it.each([
      ['the grant counter item', (pk: string) => ({ pk, sk: 'SLOTS' })],
      ['a number sk', (pk: string) => ({ pk, sk: 5 })],
      ['an extra attribute', (pk: string) => ({ pk, sk: 'JOB#0000000001', extra: 'x' })],
      ['no sk', (pk: string) => ({ pk })],
      ['a queue entry', (pk: string) => ({ pk, sk: 'Q#0000000001' })],
      ['an Idempotency-Key item', (pk: string) => ({ pk, sk: 'IDEM#k' })],
      ['another grant', () => ({ pk: `GRANT#${grants['other-bot']!.grantId}`, sk: 'JOB#0000000001' })],
      ['a list', (pk: string) => [pk, 'JOB#0000000001']],
    ])('refuses a crafted token (%s): 400 naming nextToken', async (_name, make) => {
      const refused = await page(token(make(`GRANT#${grants['page-bot']!.grantId}`)));

      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({
        code: 'validation_failed',
        fields: [{ path: 'nextToken' }],
      });
    });

    it('refuses a crafted token over MCP as the same error', async () => {
      const client = await connectMcp(`${e2e.stack.url}/mcp`, bearer(clientKey('page-bot')));
      try {
        const listed = await callTool(client, 'list_agent_jobs', {
          nextToken: token({ pk: `GRANT#${grants['page-bot']!.grantId}`, sk: 'SLOTS' }),
        });
        expect(listed.isError).toBe(true);
        expect(listed.structuredContent.error).toMatchObject({
          code: 'validation_failed',
          fields: [{ path: 'nextToken' }],
        });
      } finally {
        await client.close();
      }
    });
  });

  describe('cancel of a job between two states', () => {
    /** A job of busy-bot that took its slot and whose run was never created (a crash the sweep repairs). */
    async function startingJob(): Promise<JobRecord> {
      const { grantId, version } = grants['busy-bot']!;
      const definition = definitionFor(
        GrantSpecSchema.parse(baseGrant({ concurrency: 1 })),
        ['current_time'],
        'claude-sonnet-5-5',
        2,
      );
      if (!definition.success) throw new Error('bad definition');
      const ctx = e2e.stack.store.ctx;
      const number = await nextJobNumber(ctx, grantId);
      const now = new Date().toISOString();
      const queued: JobRecord = {
        schemaVersion: 1,
        jobId: jobIdOf(grantId, number),
        number,
        owner: 'local',
        clientId: 'busy-bot',
        grantId,
        state: 'queued',
        prompt: 'Started, then the process died.',
        requestHash: 'hash-starting',
        constraints: {
          tools: [{ name: 'current_time', gate: 'allow' }],
          model: 'claude-sonnet-5-5',
          maxTurns: 2,
          budget: { maxUsdPerJob: 1 },
          timeoutSeconds: 3600,
          maxAttempts: 3,
          grantVersion: version,
        },
        definition: definition.data,
        previousRunIds: [],
        attemptsMade: 0,
        runsStarted: 0,
        capacityWaits: 0,
        cancelRequested: false,
        createdAt: now,
        updatedAt: now,
      };
      expect(await admitJob(ctx, queued, 10, 0)).toBe('admitted');
      const starting: JobRecord = { ...queued, state: 'starting' };
      expect(await claimSlot(ctx, queued, 1, starting)).toBe('claimed');
      return starting;
    }

    it('cancels it over REST (200, never a 409), and a repeated cancel over MCP answers it, stopped nothing', async () => {
      // Prepare
      const job = await startingJob();

      // Act
      const rest = await call(e2e.stack, clientKey('busy-bot'), 'DELETE', `/v1/jobs/${job.jobId}`);
      const client = await connectMcp(`${e2e.stack.url}/mcp`, bearer(clientKey('busy-bot')));
      const tool = await callTool(client, 'cancel_agent_job', { jobId: job.jobId }).finally(() =>
        client.close(),
      );

      // Assess: cancelled before its run existed; the repeat is no error; the sweep starts nothing of it.
      expect(rest.status).toBe(200);
      expect(rest.body).toMatchObject({
        stopped: 'queued',
        job: { status: 'cancelled', stopReason: 'cancelled' },
      });
      expect(tool.isError).toBeFalsy();
      expect(tool.structuredContent).toMatchObject({ stopped: 'nothing', job: { status: 'cancelled' } });
      await sweepJobs(e2e.stack.jobs);
      const stored = await getJobRecord(e2e.stack.store.ctx, job.grantId, job.number);
      expect(stored).toMatchObject({ state: 'ended', cancelRequested: true });
      expect(stored?.runId).toBeUndefined();
    });
  });
});
