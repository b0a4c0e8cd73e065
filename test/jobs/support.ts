/** Delegated-jobs test support: a local stack on the run's DynamoDB Local and grant helpers. */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createGrant,
  type GrantSpecInput,
  GrantSpecSchema,
  getJob,
  type JobCaller,
  type JobView,
} from '../../shared/jobs/index.ts';
import type { LocalStack } from '../../shared/local/stack.ts';
import type { ScriptedFixture } from '../../shared/model/index.ts';
import { createOwnTable, type E2eStack, removeDir, startE2eStack, tempDataDir } from '../e2e/support.ts';

export type JobsStack = E2eStack & { close(): Promise<void> };

/** A local stack for job tests: no periodic sweep unless asked, quick retries. */
export async function startJobsStack(
  fixtures: ScriptedFixture[],
  options: Parameters<typeof startE2eStack>[1] extends infer O ? Partial<O> : never = {},
): Promise<JobsStack> {
  const table = await createOwnTable();
  const dataDir = await tempDataDir();
  const e2e = await startE2eStack(table, { dataDir, fixtures, jobSweepIntervalMs: 0, ...options });
  return {
    ...e2e,
    async close() {
      await e2e.stack.stop();
      await removeDir(dataDir);
    },
  };
}

export const baseGrant = (overrides: Partial<GrantSpecInput> = {}): GrantSpecInput => ({
  name: 'job-helper',
  actions: ['current_time', 'notes_append'],
  models: ['claude-sonnet-5-5'],
  maxTurns: 5,
  maxUsdPerJob: 1,
  concurrency: 2,
  maxQueued: 10,
  scopes: ['jobs:submit', 'jobs:read', 'jobs:cancel'],
  ...overrides,
});

/** Grants `clientId` as the stack's owner; returns the caller the job operations take. */
export async function grantClient(
  stack: LocalStack,
  clientId: string,
  grant: GrantSpecInput,
): Promise<JobCaller> {
  await createGrant(
    { store: stack.store, clock: stack.jobs.clock, ids: stack.jobs.ids },
    { owner: stack.owner, principal: 'tester' },
    { clientId, grant: GrantSpecSchema.parse(grant) },
  );
  return { clientId, owner: stack.owner, principal: `client:${clientId}` };
}

const TERMINAL = ['done', 'failed', 'denied', 'cancelled'];

/** Polls a job until `until` holds (default: it ended). */
export async function pollJob(
  stack: LocalStack,
  caller: JobCaller,
  jobId: string,
  until: (job: JobView) => boolean = (job) => TERMINAL.includes(job.status),
): Promise<JobView> {
  for (let i = 0; i < 600; i++) {
    const job = await getJob(stack.jobs, caller, jobId);
    if (until(job)) return job;
    await sleep(50);
  }
  throw new Error(`job ${jobId} did not reach the expected state`);
}

/** A fixture answering one text turn for agent `name`. */
export const textFixture = (name: string, text: string): ScriptedFixture =>
  ({ name, turns: [{ text }] }) as ScriptedFixture;
