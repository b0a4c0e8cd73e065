/**
 * The jobs sweep serves every owner in one invocation: one grant's fault (a throttled StartExecution) must
 * not stop the other grants, and the log lines of one grant must never carry another owner.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createJobsSweepHandler } from '../../functions/jobs-sweep.ts';
import type { TurnPointer } from '../../shared/core/outcome.ts';
import { DEFAULT_PRICES } from '../../shared/core/pricing.ts';
import {
  createGrant,
  GrantSpecSchema,
  type JobCaller,
  type JobsDeps,
  JobsSweepError,
  submitJob,
  sweepJobs,
} from '../../shared/jobs/index.ts';
import { DEFAULT_MODEL_CONFIG } from '../../shared/model/resolve.ts';
import { observeStore } from '../../shared/runtime/observed-store.ts';
import { createTelemetry } from '../../shared/runtime/telemetry.ts';
import { telemetryObserver } from '../../shared/runtime/telemetry-observers.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { RecordingExecutions } from '../api/helpers.ts';
import { captureOutput } from '../runtime/capture.ts';
import { FixedClock, randomIds, testStore } from '../support/store.ts';
import { createOwnTable } from '../support/table.ts';
import { baseGrant } from './support.ts';

// Grant ids chosen so alice's grant is swept first (the sweep lists grants in grant-id order).
const GRANT_IDS = { alice: 'grant_000000aaaaaa', bob: 'grant_zzzzzzzzzzzz' };

/** StartExecution throttled for the runs of the owners in `failing` (read from the raw store). */
class ThrottledExecutions extends RecordingExecutions {
  failing = new Set<string>();
  readonly raw: DynamoStore;
  constructor(raw: DynamoStore) {
    super();
    this.raw = raw;
  }
  override async start(name: string, pointer: TurnPointer) {
    const run = await this.raw.getRun(pointer.runId);
    if (run && this.failing.has(run.owner))
      throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    return super.start(name, pointer);
  }
}

/** Two owners' grants (concurrency 1) on a table of their own, and jobs deps over `store`. */
async function twoOwners(observe: (raw: DynamoStore) => DynamoStore = (raw) => raw) {
  const { tableName } = await createOwnTable('wf-sweep');
  const raw = testStore(tableName);
  const executions = new ThrottledExecutions(raw);
  const deps: JobsDeps = {
    store: observe(raw),
    executions,
    clock: new FixedClock(),
    ids: randomIds,
    models: { prices: DEFAULT_PRICES, roles: { ...DEFAULT_MODEL_CONFIG.roles } },
  };
  const grantAs = async (owner: 'alice' | 'bob'): Promise<JobCaller> => {
    const clientId = `bot-${randomUUID().slice(0, 8)}`;
    const ids = {
      next: (prefix: string) => (prefix === 'grant' ? GRANT_IDS[owner] : randomIds.next(prefix)),
    };
    await createGrant(
      { ...deps, store: raw, ids },
      { owner, principal: owner },
      { clientId, grant: GrantSpecSchema.parse(baseGrant({ concurrency: 1 })) },
    );
    return { clientId, owner, principal: `client:${clientId}` };
  };
  return { deps, executions, raw, alice: await grantAs('alice'), bob: await grantAs('bob') };
}

const startedOwners = async (raw: DynamoStore, executions: RecordingExecutions) =>
  Promise.all(executions.starts.map(async (start) => (await raw.getRun(start.pointer.runId))?.owner));

describe('Function: sweepJobs', () => {
  it("starts bob's job although alice's grant, swept first, faults; then reports alice's grant", async () => {
    // Prepare: both submissions took their slot but could not start (left 'starting', as the sweep repairs).
    const { deps, executions, raw, alice, bob } = await twoOwners();
    executions.failing = new Set(['alice', 'bob']);
    await submitJob(deps, alice, { prompt: 'a' }).catch(() => undefined);
    await submitJob(deps, bob, { prompt: 'b' }).catch(() => undefined);
    executions.failing = new Set(['alice']);

    // Act
    const swept = await sweepJobs(deps).catch((error: unknown) => error);

    // Assess: bob's job started; the sweep still fails, naming alice's grant only.
    expect(await startedOwners(raw, executions)).toEqual(['bob']);
    expect(swept).toBeInstanceOf(JobsSweepError);
    expect((swept as JobsSweepError).failures).toEqual([
      {
        grantId: GRANT_IDS.alice,
        // The job's run stays pending (the next sweep starts it by its name); the throttle is its cause.
        error: {
          name: 'RunStartPendingError',
          message: expect.stringMatching(
            /^run run_\w+ is pending: its execution could not be started \(Rate exceeded\)$/,
          ),
        },
      },
    ]);
    expect((swept as JobsSweepError).message).not.toContain('alice');
  });
});

describe('Function: jobs-sweep handler', () => {
  it("never puts one owner's keys on the log lines about another owner's grant", async () => {
    // Prepare: alice's job runs (the sweep reads its run), bob's is left 'starting' and its start throttled.
    const telemetry = createTelemetry({ POWERTOOLS_LOG_LEVEL: 'INFO' });
    const { deps, executions, alice, bob } = await twoOwners((raw) =>
      observeStore(raw, telemetryObserver(telemetry)),
    );
    await submitJob(deps, alice, { prompt: 'a' });
    executions.failing = new Set(['bob']);
    await submitJob(deps, bob, { prompt: 'b' }).catch(() => undefined);
    const handler = createJobsSweepHandler(() => deps, telemetry);
    const output = captureOutput();

    // Act
    let failed: unknown;
    try {
      await handler({ source: 'aws.events', 'detail-type': 'Scheduled Event' });
    } catch (error) {
      failed = error;
    } finally {
      output.restore();
    }

    // Assess: a line naming an owner names that owner's grant; bob's fault is logged as bob's.
    const logs = output.logs();
    const owned = logs.filter((line) => 'owner' in line);
    for (const line of owned) expect(line.grantId, JSON.stringify(line)).toBe(GRANT_IDS[line.owner as 'bob']);
    expect(owned.map((line) => [line.message, line.owner])).toEqual([['grant not swept', 'bob']]);
    expect(logs.find((line) => line.message === 'invocation failed')).not.toHaveProperty('runId');
    expect(failed).toBeInstanceOf(JobsSweepError);
  });
});
