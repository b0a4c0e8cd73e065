/**
 * A delegated job whose run's execution died outside MarkFailed (stopped by an operator, MarkFailed throttled
 * past its retries) kept its concurrency slot for good: its run stayed `running`, and the sweep settles a job only
 * when its run has ended. The execution-ended rule now ends the run (mark-failed), and the jobs sweep's run-ended
 * rule, given the same Step Functions event, settles the job and promotes the next one. Real handlers, DynamoDB
 * Local, the event shape AWS documents.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createJobsSweepHandler } from '../../functions/jobs-sweep.ts';
import { createMarkFailedHandler } from '../../functions/mark-failed.ts';
import { DEFAULT_PRICES } from '../../shared/core/pricing.ts';
import {
  createGrant,
  GrantSpecSchema,
  getJob,
  type JobCaller,
  type JobsDeps,
  submitJob,
} from '../../shared/jobs/index.ts';
import { DEFAULT_MODEL_CONFIG } from '../../shared/model/resolve.ts';
import { handlerTelemetry } from '../../shared/runtime/telemetry.ts';
import { RecordingExecutions } from '../api/helpers.ts';
import { FixedClock, randomIds, testStore, uniqueOwner } from '../support/store.ts';
import { baseGrant } from './support.ts';

const aborted = (runId: string) => ({
  version: '0',
  source: 'aws.states',
  'detail-type': 'Step Functions Execution Status Change',
  detail: {
    executionArn: `arn:aws:states:eu-west-1:123456789012:execution:wf-runs:${runId}`,
    stateMachineArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:wf-runs',
    name: runId,
    status: 'ABORTED',
    input: JSON.stringify({ runId, turn: 0, segmentStartTurn: 0 }),
    inputDetails: { included: true },
  },
});

describe('a job whose run’s execution was stopped outside MarkFailed', () => {
  it('gets its run ended and its slot back, and the next queued job starts', async () => {
    const deps: JobsDeps = {
      store: testStore(),
      executions: new RecordingExecutions(),
      clock: new FixedClock(),
      ids: randomIds,
      models: { prices: DEFAULT_PRICES, roles: { ...DEFAULT_MODEL_CONFIG.roles } },
    };
    const owner = uniqueOwner();
    const clientId = `bot-${randomUUID().slice(0, 8)}`;
    await createGrant(
      deps,
      { owner, principal: owner },
      { clientId, grant: GrantSpecSchema.parse(baseGrant({ concurrency: 1 })) },
    );
    const caller: JobCaller = { clientId, owner, principal: `client:${clientId}` };
    const first = await submitJob(deps, caller, { prompt: 'first' });
    const second = await submitJob(deps, caller, { prompt: 'second' });
    if ('dryRun' in first || 'dryRun' in second) throw new Error('not a dry run');
    const runId = (await getJob(deps, caller, first.job.jobId)).runId!;
    const run = await deps.store.getRun(runId);
    await deps.store.commit({ run: run!, next: { ...run!, status: 'running' } });
    const markFailed = createMarkFailedHandler(
      () => ({ store: deps.store, clock: deps.clock }),
      handlerTelemetry(),
    );
    const sweep = createJobsSweepHandler(() => deps, handlerTelemetry());

    // Both rules get the event; mark-failed ends the run, the sweep settles its job.
    await markFailed(aborted(runId));
    await sweep(aborted(runId));

    expect((await deps.store.getRun(runId))?.status).toBe('failed');
    expect((await getJob(deps, caller, first.job.jobId)).status).not.toBe('running');
    expect((await getJob(deps, caller, second.job.jobId)).status).toBe('running');
  });
});
