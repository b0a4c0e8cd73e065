import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepJobs } from '../../shared/jobs/index.ts';
import { admitJob, claimSlot, getJobRecord, nextJobNumber } from '../../shared/jobs/queue-store.ts';
import { type JobRecord, jobKeys } from '../../shared/jobs/records.ts';
import { definitionFor } from '../../shared/jobs/resolve.ts';
import { GrantSpecSchema } from '../../shared/jobs/schemas.ts';
import { jobIdOf } from '../../shared/schemas/job.ts';
import { baseGrant, grantClient, type JobsStack, pollJob, startJobsStack, textFixture } from './support.ts';

describe('Function: sweepJobs', () => {
  let e2e: JobsStack;
  beforeAll(async () => {
    e2e = await startJobsStack([textFixture('job-helper', 'Swept.')]);
  });
  afterAll(() => e2e.close());

  /** A grant for `clientId` (concurrency 1) and a maker of its queued jobs, admitted as the API would. */
  async function queueOf(clientId: string) {
    const caller = await grantClient(e2e.stack, clientId, baseGrant({ concurrency: 1 }));
    const grant = (
      await e2e.stack.store.ctx.doc.send(
        new (
          await import('@aws-sdk/lib-dynamodb')
        ).GetCommand({
          TableName: e2e.stack.store.ctx.table,
          Key: jobKeys.grantHead(e2e.stack.owner, clientId),
        }),
      )
    ).Item as { grantId: string; version: number };
    const spec = GrantSpecSchema.parse(baseGrant({ concurrency: 1 }));
    const definition = definitionFor(spec, ['current_time'], 'claude-sonnet-5-5', 2);
    if (!definition.success) throw new Error('bad definition');
    const make = async (prompt: string, overrides: Partial<JobRecord> = {}): Promise<JobRecord> => {
      const number = await nextJobNumber(e2e.stack.store.ctx, grant.grantId);
      const now = new Date().toISOString();
      const job: JobRecord = {
        schemaVersion: 1,
        jobId: jobIdOf(grant.grantId, number),
        number,
        owner: 'local',
        clientId,
        grantId: grant.grantId,
        state: 'queued',
        prompt,
        requestHash: `hash-${prompt}`,
        constraints: {
          tools: [{ name: 'current_time', gate: 'allow' }],
          model: 'claude-sonnet-5-5',
          maxTurns: 2,
          budget: { maxUsdPerJob: 1 },
          timeoutSeconds: 3600,
          maxAttempts: 3,
          grantVersion: grant.version,
        },
        definition: definition.data,
        previousRunIds: [],
        attemptsMade: 0,
        runsStarted: 0,
        capacityWaits: 0,
        cancelRequested: false,
        createdAt: now,
        updatedAt: now,
        ...overrides,
      };
      expect(await admitJob(e2e.stack.store.ctx, job, 10, 0)).toBe('admitted');
      return job;
    };
    return { caller, grant, make };
  }

  it('starts a job a crash left holding a slot without a run, and promotes what waits behind it', async () => {
    const { caller, grant, make } = await queueOf('crash-bot');
    // Prepare: job 1 took the only slot and the process died before creating its run; job 2 waits.
    const first = await make('first');
    const second = await make('second');
    expect(await claimSlot(e2e.stack.store.ctx, first, 1, { ...first, state: 'starting' })).toBe('claimed');

    // Act
    await sweepJobs(e2e.stack.jobs);

    // Assess: the first runs to done, which promotes the second, which runs to done too.
    expect((await pollJob(e2e.stack, caller, first.jobId)).status).toBe('done');
    expect((await pollJob(e2e.stack, caller, second.jobId)).status).toBe('done');
    const stored = await getJobRecord(e2e.stack.store.ctx, grant.grantId, first.number);
    expect(stored).toMatchObject({ state: 'ended', runsStarted: 1, attemptsMade: 1 });
  });

  it('ends a retry queued before the job tally existed, its budget counted spent, without starting a run', async () => {
    const { grant, make } = await queueOf('legacy-bot');
    // A record of the previous release: one attempt made, queued for its retry, no `spentUsd` tally.
    const legacy = await make('legacy', {
      previousRunIds: ['run_previous_attempt'],
      attemptsMade: 1,
      runsStarted: 1,
    });

    await sweepJobs(e2e.stack.jobs);

    const stored = await getJobRecord(e2e.stack.store.ctx, grant.grantId, legacy.number);
    expect(stored).toMatchObject({
      state: 'ended',
      runsStarted: 1,
      final: { status: 'failed', stopReason: 'budget_exceeded' },
    });
    expect(stored?.runId).toBeUndefined();
  });
});
