/**
 * The world of the tenancy check (tenancy-routes.test.ts): one local stack with owners A and B, A's objects of
 * every kind, and the requests a probe sends (tenancy-fixtures.ts) with A's ids or missing ones.
 */
import { expect } from 'vitest';
import { ApiClient } from '../../shared/cli/client.ts';
import { humanTaskId } from '../../shared/schemas/human-task.ts';
import { jobIdOf } from '../../shared/schemas/job.ts';
import { ownerSnapshot } from '../api/helpers.ts';
import { refundGraph, startRefund } from '../graph/support.ts';
import { baseGrant, clientKey, textFixture } from '../jobs/support.ts';
import { type GraphStack, startGraphStack } from '../support/graph-stack.ts';
import { missingRunId } from '../support/store.ts';
import { appendTurn, applyWorkflowText, awaitingApproval, type E2eStack, eventually } from './support.ts';
import { agentDefinition, type Caller, type IdKind, type Probe, type Value } from './tenancy-fixtures.ts';

const KEY_A = `wfl_${'A'.repeat(32)}`;
const KEY_B = `wfl_${'B'.repeat(32)}`;
export const CLIENTS = { a: 'a-bot', b: 'b-bot', sibling: 'a-other' } as const;

let graph: GraphStack;
export let e2e: E2eStack;
let origin: string;
let consoleCookie: string;
export const foreign = {} as Record<IdKind, string>;
/** A's ids that no answer to B may carry (client ids are names, not secrets: B may use the same). */
export let leakable: string[];
/** Each client's grant id: a missing job id is one under the caller's own grant. */
const grantIds: Record<string, string> = {};

const MISSING: Record<IdKind, string> = {
  agentWorkflow: 'wf_missing0000000000',
  graphWorkflow: 'wf_missing0000000000',
  externalWorkflow: 'wf_missing0000000000',
  agentRun: missingRunId(),
  graphRun: missingRunId(),
  externalRun: missingRunId(),
  jobRun: missingRunId(),
  childRun: missingRunId(),
  approval: 'apr_missing0000000000',
  humanTask: humanTaskId(missingRunId(), 'manager_review', 1),
  job: '', // per caller: missingJob
  client: 'nobody-granted',
  // Page tokens of a listing of nobody's: A's must be refused as theirs is.
  runsToken: Buffer.from(
    JSON.stringify({ pk: 'RUN#run_x', sk: 'RUN', gsi1pk: 'OWNER#nobody', gsi1sk: 'RUN#x' }),
  ).toString('base64url'),
  workflowsToken: Buffer.from(JSON.stringify({ pk: 'OWNER#nobody', sk: 'WF#wf_x' })).toString('base64url'),
};
const missingJob = (caller: Caller) =>
  jobIdOf(grantIds[caller === 'siblingA' ? CLIENTS.sibling : CLIENTS.b] ?? 'grant_none000', 999_999);
export const missingOf = (kind: IdKind, caller: Caller) =>
  kind === 'job' ? missingJob(caller) : MISSING[kind];

const EXTERNAL = `kind: external
name: tenancy-a-external
description: a nightly build, shadow mode (nothing is dispatched)
engine: http-runtime
mode: shadow
payload: { branch: main }
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1 }
`;
const EVENT = `name: tenancy-a-event
description: started by an order event (of A's only)
model: { id: claude-sonnet-5-5, maxTokens: 512 }
prompt:
  system: Say done.
allowedActions: [current_time]
trigger:
  type: event
  pattern: { source: [com.example.orders] }
budget: { maxUsdPerRun: 1, maxTurns: 2, maxToolCallsPerTurn: 1 }
`;
const GATED = `name: tenancy-a-agent
description: appends one line, with a human's approval
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt:
  system: Append the line you are asked to append with notes_append.
allowedActions: [notes_append]
gates:
  notes_append: needs_approval
approvals:
  approvers: [editor@example.com]
  timeoutSeconds: 3600
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 4, maxToolCallsPerTurn: 4 }
`;

export type Reply = { status: number; headers: Record<string, string>; body: unknown };
/** Headers that differ between any two answers (the time; the length follows an echoed id's). */
const VOLATILE = new Set(['date', 'content-length', 'keep-alive', 'connection']);
export const keyOf: Record<Caller, string | undefined> = {
  ownerB: KEY_B,
  clientB: clientKey(CLIENTS.b),
  siblingA: clientKey(CLIENTS.sibling),
  consoleB: undefined,
  anonymous: undefined,
};

/** One request as `caller`; the body is JSON when the answer is, else its text. */
export async function send(caller: Caller, method: string, path: string, probe: Probe): Promise<Reply> {
  const key = keyOf[caller];
  const headers: Record<string, string> = {
    // The pages' same-origin rule: a browser on the stack's own origin.
    origin,
    'sec-fetch-site': 'same-origin',
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...(caller === 'consoleB' ? { cookie: consoleCookie } : {}),
  };
  let body: string | undefined;
  if (probe.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(probe.json);
  } else if (probe.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    const form = Object.entries(probe.form).map(([k, v]) => [k, v === 'B' ? KEY_B : v]);
    body = new URLSearchParams(form).toString();
  }
  const response = await fetch(`${e2e.stack.url}${path}`, {
    method,
    headers,
    redirect: 'manual',
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.includes('json');
  const kept = [...response.headers].filter(([name]) => !VOLATILE.has(name));
  return {
    status: response.status,
    headers: Object.fromEntries(kept),
    body: json && text ? JSON.parse(text) : text,
  };
}

/** The request of `probe` on `route` with A's ids (`ids = 'foreign'`) or missing ones. */
export function requestOf(route: string, probe: Probe, ids: 'foreign' | 'missing') {
  const [method = '', pattern = ''] = route.split(' ');
  const value = (v: Value) =>
    typeof v === 'string' ? (ids === 'foreign' ? foreign[v] : missingOf(v, probe.as)) : v.literal;
  const path = pattern.replace(/:(\w+)/g, (_m, name: string) => {
    const v = probe.params?.[name];
    if (v === undefined) throw new Error(`${route}: the fixture gives no value for :${name}`);
    return encodeURIComponent(value(v));
  });
  const query = new URLSearchParams(
    Object.entries(probe.query ?? {}).map(([name, v]) => [name, value(v)]),
  ).toString();
  return { method, path: query ? `${path}?${query}` : path };
}

export const namesIds = (probe: Probe) =>
  [...Object.values(probe.params ?? {}), ...Object.values(probe.query ?? {})].some(
    (v) => typeof v === 'string',
  );

/** `reply` with each of A's ids it echoes swapped for the missing id the other request carried. */
export function echoSwapped(reply: Reply, probe: Probe): Reply {
  let text = JSON.stringify(reply);
  for (const v of [...Object.values(probe.params ?? {}), ...Object.values(probe.query ?? {})])
    if (typeof v === 'string') text = text.replaceAll(foreign[v], missingOf(v, probe.as));
  return JSON.parse(text);
}

/** Every item of `owner`'s in the stack's table (by key, index key or owner attribute), as sorted JSON. */
export const itemsOf = (owner: string): Promise<string[]> => ownerSnapshot(e2e.stack.store, owner);

export const itemsOfA = () => itemsOf('team-a');
/** What the caller's owner got written by a request: B's answer to A's id may not differ even there. */
export const addedFor = (before: string[], after: string[]) => after.filter((item) => !before.includes(item));

export async function asA(method: 'GET' | 'POST', path: string, body?: unknown, key = KEY_A) {
  const client = new ApiClient(e2e.stack.url, { kind: 'api-key', apiKey: key });
  // biome-ignore lint/suspicious/noExplicitAny: setup reads the ids it needs from the replies.
  return method === 'GET' ? client.get<any>(path) : (await client.post<any>(path, body)).body;
}

/** Starts the stack and makes A's objects, once per test file; `stopTenancyWorld` stops it. */
export async function startTenancyWorld(): Promise<void> {
  graph = await startGraphStack({
    humanTasks: 'service',
    apiKeys: {
      [KEY_A]: { owner: 'team-a' },
      [KEY_B]: { owner: 'team-b' },
      [clientKey(CLIENTS.a)]: { owner: 'team-a', client: CLIENTS.a },
      [clientKey(CLIENTS.sibling)]: { owner: 'team-a', client: CLIENTS.sibling },
      [clientKey(CLIENTS.b)]: { owner: 'team-b', client: CLIENTS.b },
    },
    fixtureDirs: [new URL('../../examples/fixtures/', import.meta.url).pathname],
    fixtures: [
      { name: 'tenancy-a-agent', turns: [appendTurn('a line'), { text: 'done' }] },
      textFixture('job-helper', 'Done: 42.'),
    ],
    externalEngines: { 'http-runtime': { enabled: true, settings: { endpoint: 'http://127.0.0.1:9' } } },
    // No periodic jobs sweep: nothing writes A's items but the probes (A's job has ended anyway).
    jobSweepIntervalMs: 0,
  });
  e2e = graph.e2e;
  origin = new URL(e2e.stack.url).origin;
  const a = { ...e2e, client: new ApiClient(e2e.stack.url, { kind: 'api-key', apiKey: KEY_A }) };
  // A's objects of every kind: an agent run waiting for approval (and a draft of its workflow), a graph run
  // waiting on a human task, an external run, a delegated job that ran.
  foreign.agentWorkflow = await applyWorkflowText(a, 'tenancy-a-agent', GATED);
  foreign.graphWorkflow = await applyWorkflowText(
    a,
    'refund-large',
    refundGraph('refund-large', graph.payments.url),
  );
  foreign.externalWorkflow = await applyWorkflowText(a, 'tenancy-a-external', EXTERNAL);
  // Matched by B's events too, were they not fenced: a run of it would change A's items.
  await applyWorkflowText(a, 'tenancy-a-event', EVENT);
  await asA(
    'POST',
    `/v1/workflows/${foreign.agentWorkflow}/versions?draft=true`,
    agentDefinition('tenancy-a-agent'),
  );
  foreign.graphRun = await startRefund(a, foreign.graphWorkflow, 'My order never arrived. Customer c_88.');
  foreign.agentRun = (
    await asA('POST', `/v1/workflows/${foreign.agentWorkflow}/runs`, { input: { note: 'tenancy' } })
  ).run.runId;
  foreign.externalRun = (
    await asA('POST', `/v1/workflows/${foreign.externalWorkflow}/runs`, { input: {} })
  ).run.runId;
  for (const [key, clientId] of [
    [KEY_A, CLIENTS.a],
    [KEY_A, CLIENTS.sibling],
    [KEY_B, CLIENTS.b],
  ] as const)
    grantIds[clientId] = (
      await asA('POST', '/v1/grants', { clientId, grant: baseGrant() }, key)
    ).grant.grantId;
  foreign.client = CLIENTS.a;
  foreign.job = (
    await asA('POST', '/v1/jobs', { prompt: 'What time is it?' }, clientKey(CLIENTS.a))
  ).job.jobId;
  foreign.approval = (await awaitingApproval(a, foreign.agentRun)).approval.approvalId;
  foreign.humanTask = await eventually(
    'the open manager review',
    async () =>
      (await e2e.stack.store.listRunHumanTasks(foreign.graphRun)).find((t) => t.status === 'open')?.taskId,
  );
  foreign.childRun = await eventually(
    'the triage child run',
    async () =>
      (await e2e.stack.store.loadGraphRun(foreign.graphRun))?.steps.find((step) => step.stepId === 'triage')
        ?.childRunId,
  );
  foreign.jobRun = await eventually('the job to end', async () => {
    const { job } = await asA('GET', `/v1/jobs/${foreign.job}`, undefined, clientKey(CLIENTS.a));
    return job.status === 'done' ? job.runId : undefined;
  });
  await eventually('the external run to end', async () => {
    const { run } = await asA('GET', `/v1/runs/${foreign.externalRun}`);
    return ['done', 'failed'].includes(run.status) ? true : undefined;
  });
  foreign.runsToken = (await asA('GET', '/v1/runs?limit=1')).nextToken;
  foreign.workflowsToken = (await asA('GET', '/v1/workflows?limit=1')).nextToken;
  expect([foreign.runsToken, foreign.workflowsToken]).toEqual([expect.any(String), expect.any(String)]);
  leakable = Object.entries(foreign)
    .filter(([kind]) => !['client', 'runsToken', 'workflowsToken'].includes(kind))
    .map(([, id]) => id)
    .concat(Object.values(grantIds).filter((id) => id !== grantIds[CLIENTS.b]));
  // B in the console.
  const signIn = await fetch(`${e2e.stack.url}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: `key=${KEY_B}`,
  });
  expect(signIn.status).toBe(303);
  consoleCookie = /(wf_console=[^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1] ?? '';
  // A settles: nothing of A's moves on its own from here (the waits are an hour and a day long).
  let before = await itemsOfA();
  await eventually('A to settle', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = await itemsOfA();
    const same = JSON.stringify(now) === JSON.stringify(before);
    before = now;
    return same ? true : undefined;
  });
}

export async function stopTenancyWorld(): Promise<void> {
  await graph?.stop();
}
