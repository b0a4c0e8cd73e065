/**
 * Upgrading to the job tally (jobs/spend.ts) while a job's retry runs: the record has earlier attempts but no
 * tally, and its attempt in flight was admitted with the job's whole budget. It keeps that budget for its
 * remaining turns (each turn reads the job's snapshot); only a NEW attempt of such a record counts the earlier
 * ones as all spent (test/jobs/sweep.test.ts). DynamoDB Local and the real turn.
 */
import { describe, expect, it } from 'vitest';
import { reserveFirstTurn } from '../../shared/core/first-reservation.ts';
import { prepareRun } from '../../shared/core/new-run.ts';
import { createGrant } from '../../shared/jobs/grants.ts';
import { admitJob, claimSlot, nextJobNumber, updateActiveJob } from '../../shared/jobs/queue-store.ts';
import type { JobRecord } from '../../shared/jobs/records.ts';
import { definitionFor } from '../../shared/jobs/resolve.ts';
import { GrantSpecSchema } from '../../shared/jobs/schemas.ts';
import { jobIdOf } from '../../shared/schemas/job.ts';
import { driveRun, engineDeps, ScriptedModel, text } from '../support/engine.ts';
import { FixedClock, randomIds, testPlanning, testStore, uniqueOwner } from '../support/store.ts';
import { baseGrant } from './support.ts';

const store = testStore();
const clock = new FixedClock();

/** A job of the previous release running its second attempt: `previousRunIds` set, no `spentUsd` tally. */
async function legacyRetryInFlight() {
  const owner = uniqueOwner();
  const spec = GrantSpecSchema.parse(baseGrant({ concurrency: 1 }));
  const grant = await createGrant(
    { store, clock, ids: randomIds },
    { owner, principal: 'tester' },
    { clientId: 'upgrade-bot', grant: spec },
  );
  const definition = definitionFor(spec, ['current_time'], 'claude-sonnet-5-5', 3);
  if (!definition.success) throw new Error('bad definition');
  const number = await nextJobNumber(store.ctx, grant.grantId);
  const now = new Date(clock.nowMs()).toISOString();
  const queued: JobRecord = {
    schemaVersion: 1,
    jobId: jobIdOf(grant.grantId, number),
    number,
    owner,
    clientId: 'upgrade-bot',
    grantId: grant.grantId,
    state: 'queued',
    prompt: 'Try again.',
    requestHash: `hash-${number}`,
    constraints: {
      tools: [{ name: 'current_time', gate: 'allow' }],
      model: 'claude-sonnet-5-5',
      maxTurns: 3,
      budget: { maxUsdPerJob: 1 },
      timeoutSeconds: 3600,
      maxAttempts: 3,
      grantVersion: grant.version,
    },
    definition: definition.data,
    previousRunIds: ['run_first_attempt'],
    attemptsMade: 1,
    runsStarted: 1,
    capacityWaits: 0,
    cancelRequested: false,
    createdAt: now,
    updatedAt: now,
  };
  expect(await admitJob(store.ctx, queued, 10, 0)).toBe('admitted');
  const starting: JobRecord = { ...queued, state: 'starting' };
  expect(await claimSlot(store.ctx, queued, 1, starting)).toBe('claimed');
  // The previous release started the attempt with the job's own definition (its whole budget).
  const version = {
    schemaVersion: 1 as const,
    owner,
    workflowId: grant.grantId,
    version: number,
    definition: queued.definition,
    status: 'published' as const,
    createdAt: now,
  };
  const prepared = prepareRun({
    version,
    trigger: {
      type: 'job',
      jobId: queued.jobId,
      clientId: 'upgrade-bot',
      grantId: grant.grantId,
      grantVersion: grant.version,
      attempt: 2,
    },
    input: queued.prompt,
    clock,
    ids: randomIds,
    actor: 'client:upgrade-bot',
  });
  const { run } = await store.createRun(
    reserveFirstTurn(prepared, queued.definition, testPlanning(store), clock),
  );
  const running: JobRecord = { ...starting, state: 'running', runId: run.runId, runsStarted: 2 };
  expect(await updateActiveJob(store.ctx, running, { state: 'starting' })).toBe(true);
  return run.runId;
}

describe('jobs: an attempt in flight when the tally arrives', () => {
  it('keeps the budget it was admitted with: its turn calls the model and the run ends done', async () => {
    // Prepare
    const runId = await legacyRetryInFlight();

    // Act: the upgraded runtime drives the attempt's next turn (which reads the job's snapshot).
    await driveRun(
      engineDeps(store, new ScriptedModel([{ content: [text('Fixed.')], stopReason: 'end_turn' }]), {
        clock,
        delegation: store,
      }),
      runId,
    );

    // Assess: not ended max_turns (a snapshot with no turns left) before calling the model.
    expect(await store.getRun(runId)).toMatchObject({
      status: 'done',
      stopReason: 'end_turn',
      modelCalls: 1,
      result: { text: 'Fixed.' },
    });
  });
});
