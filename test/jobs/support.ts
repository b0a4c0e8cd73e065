/** Delegated-jobs test support: a local stack on the run's DynamoDB Local and grant helpers. */

import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient } from '../../shared/cli/client.ts';
import {
  createGrant,
  type GrantSpecInput,
  GrantSpecSchema,
  getJob,
  type JobCaller,
  type JobView,
} from '../../shared/jobs/index.ts';
import type { LocalStack, LocalStackOptions } from '../../shared/local/stack.ts';
import type { ScriptedFixture } from '../../shared/model/index.ts';
import {
  APPROVER,
  appendTurn,
  awaitingApproval,
  createOwnTable,
  type E2eStack,
  hiddenFields,
  openPage,
  postForm,
  removeDir,
  startE2eStack,
  tempDataDir,
} from '../e2e/support.ts';

export type JobsStack = E2eStack & {
  /** An HTTP client per client id, with that client's API key. */
  clients: Record<string, ApiClient>;
  close(): Promise<void>;
};

/** The API key the stack's keys file gives client `clientId` of owner `local`. */
export const clientKey = (clientId: string) => `wfc_test_key_for_${clientId}`;

/**
 * A local stack for job tests (no periodic sweep unless asked, quick retries) whose keys file holds the
 * owner's key and one key per client in `clientIds` (owner `local`, or `owner` for foreign ones).
 */
export async function startJobsStack(
  fixtures: ScriptedFixture[],
  options: Partial<LocalStackOptions> & {
    clientIds?: string[];
    foreignClients?: Record<string, string>;
    /** More owners' keys: key → owner. */
    ownerKeys?: Record<string, string>;
  } = {},
): Promise<JobsStack> {
  const table = await createOwnTable();
  const dataDir = await tempDataDir();
  const { clientIds = [], foreignClients = {}, ownerKeys = {}, ...stackOptions } = options;
  const keys: Record<string, { owner: string; client?: string }> = {
    [`wfl_owner_key_${randomUUID()}`]: { owner: 'local' },
  };
  for (const clientId of clientIds) keys[clientKey(clientId)] = { owner: 'local', client: clientId };
  for (const [clientId, owner] of Object.entries(foreignClients))
    keys[clientKey(clientId)] = { owner, client: clientId };
  for (const [key, owner] of Object.entries(ownerKeys)) keys[key] = { owner };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, 'api-keys.json'), JSON.stringify({ keys }));
  const e2e = await startE2eStack(table, { dataDir, fixtures, jobSweepIntervalMs: 0, ...stackOptions });
  const clients = Object.fromEntries(
    [...clientIds, ...Object.keys(foreignClients)].map((clientId) => [
      clientId,
      new ApiClient(e2e.stack.url, { kind: 'api-key', apiKey: clientKey(clientId) }),
    ]),
  );
  return {
    ...e2e,
    clients,
    async close() {
      await e2e.stack.stop();
      await removeDir(dataDir);
    },
  };
}

/** A raw request with a client's (or any) API key: status and JSON body, whatever the status. */
export async function call(
  stack: LocalStack,
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON the route answered, status by status.
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
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

/** A grant whose one action, `notes_append`, waits for APPROVER: its jobs hold their slot while they wait. */
export const gatedGrant = (overrides: Partial<GrantSpecInput> = {}): GrantSpecInput =>
  baseGrant({
    name: 'job-gated',
    actions: ['notes_append', 'current_time'],
    gates: { notes_append: 'needs_approval' },
    approvals: { approvers: [APPROVER], timeoutSeconds: 600 },
    ...overrides,
  });

/** Agent `job-gated`: asks to append a line (needs approval), then reports what the tool said. */
export const gatedFixture = (): ScriptedFixture =>
  ({
    name: 'job-gated',
    turns: [appendTurn('from a job'), { text: 'Recorded, or told why not.' }],
  }) as ScriptedFixture;

/** Approves the pending approval of run `runId` as its approver would (page, then form). */
export async function approveRun(e2e: E2eStack, runId: string): Promise<void> {
  const { link } = await awaitingApproval(e2e, runId);
  const form = await openPage(link);
  const decided = await postForm(form.action, { ...hiddenFields(form), decision: 'approve' });
  if (decided.status !== 200) throw new Error(`approval answered ${decided.status}`);
}
