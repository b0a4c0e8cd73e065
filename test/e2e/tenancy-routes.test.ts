/**
 * Tenancy, derived from the code: every route the local stack's HTTP server matches (the API, the local
 * extras, the console, the approval and human-task pages) and every tool of the jobs MCP server is probed with
 * owner A's ids as owner B (B's client, a second client of A's, B in the console, nobody), against a missing
 * id of the same shape: the two answers are the same, status and body (the id a reply echoes swapped), and
 * nothing of A's changes (every item of A's in the table, byte for byte). A probe without an id must show
 * none of A's ids. The route and tool lists come from the stack and the MCP server themselves: one without a
 * fixture in tenancy-fixtures.ts fails the check, with the row to add.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiFunctionApp } from '../../shared/api/api-function-app.ts';
import type { ApiDeps } from '../../shared/api/deps.ts';
import { createMcpApp, type McpAppDeps } from '../../shared/api/mcp-app.ts';
import { createWorkflowWriteApp } from '../../shared/api/workflow-write-app.ts';
import type { ApprovalAppDeps } from '../../shared/approvals-http/deps.ts';
import { ApiClient } from '../../shared/cli/client.ts';
import type { HumanTaskDeps } from '../../shared/human-tasks/deps.ts';
import { signedPagesApp } from '../../shared/human-tasks/signed-pages.ts';
import { humanTaskId } from '../../shared/schemas/human-task.ts';
import { jobIdOf } from '../../shared/schemas/job.ts';
import { refundGraph, startRefund } from '../graph/support.ts';
import { baseGrant, clientKey, textFixture } from '../jobs/support.ts';
import { bearer, callTool, connectMcp } from '../mcp/support.ts';
import { type GraphStack, startGraphStack } from '../support/graph-stack.ts';
import { missingRunId } from '../support/store.ts';
import { appendTurn, applyWorkflowText, awaitingApproval, type E2eStack, eventually } from './support.ts';
import {
  agentDefinition,
  type Caller,
  type IdKind,
  type Probe,
  ROUTES,
  TOOLS,
  type Value,
} from './tenancy-fixtures.ts';

const KEY_A = `wfl_${'A'.repeat(32)}`;
const KEY_B = `wfl_${'B'.repeat(32)}`;
const CLIENTS = { a: 'a-bot', b: 'b-bot', sibling: 'a-other' } as const;

let graph: GraphStack;
let e2e: E2eStack;
let origin: string;
let consoleCookie: string;
const foreign = {} as Record<IdKind, string>;
/** A's ids that no answer to B may carry (client ids are names, not secrets: B may use the same). */
let leakable: string[];
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
const missingOf = (kind: IdKind, caller: Caller) => (kind === 'job' ? missingJob(caller) : MISSING[kind]);

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

type Reply = { status: number; headers: Record<string, string>; body: unknown };
/** Headers that differ between any two answers (the time; the length follows an echoed id's). */
const VOLATILE = new Set(['date', 'content-length', 'keep-alive', 'connection']);
const keyOf: Record<Caller, string | undefined> = {
  ownerB: KEY_B,
  clientB: clientKey(CLIENTS.b),
  siblingA: clientKey(CLIENTS.sibling),
  consoleB: undefined,
  anonymous: undefined,
};

/** One request as `caller`; the body is JSON when the answer is, else its text. */
async function send(caller: Caller, method: string, path: string, probe: Probe): Promise<Reply> {
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
function requestOf(route: string, probe: Probe, ids: 'foreign' | 'missing') {
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

const namesIds = (probe: Probe) =>
  [...Object.values(probe.params ?? {}), ...Object.values(probe.query ?? {})].some(
    (v) => typeof v === 'string',
  );

/** `reply` with each of A's ids it echoes swapped for the missing id the other request carried. */
function echoSwapped(reply: Reply, probe: Probe): Reply {
  let text = JSON.stringify(reply);
  for (const v of [...Object.values(probe.params ?? {}), ...Object.values(probe.query ?? {})])
    if (typeof v === 'string') text = text.replaceAll(foreign[v], missingOf(v, probe.as));
  return JSON.parse(text);
}

/** Every item of `owner`'s in the stack's table (by key, index key or owner attribute), as sorted JSON. */
async function itemsOf(owner: string): Promise<string[]> {
  const { store } = e2e.stack;
  const items: string[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await store.ctx.doc.send(
      new ScanCommand({
        TableName: store.ctx.table,
        FilterExpression:
          'contains(pk, :o) OR contains(sk, :o) OR contains(gsi1pk, :o) OR contains(gsi2pk, :o) OR #owner = :o',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':o': owner },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? [])
      items.push(
        JSON.stringify(Object.fromEntries(Object.entries(item).sort(([x], [y]) => (x < y ? -1 : 1)))),
      );
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items.sort();
}

const itemsOfA = () => itemsOf('team-a');
/** What the caller's owner got written by a request: B's answer to A's id may not differ even there. */
const addedFor = (before: string[], after: string[]) => after.filter((item) => !before.includes(item));

async function asA(method: 'GET' | 'POST', path: string, body?: unknown, key = KEY_A) {
  const client = new ApiClient(e2e.stack.url, { kind: 'api-key', apiKey: key });
  // biome-ignore lint/suspicious/noExplicitAny: setup reads the ids it needs from the replies.
  return method === 'GET' ? client.get<any>(path) : (await client.post<any>(path, body)).body;
}

beforeAll(async () => {
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
}, 120_000);

afterAll(async () => {
  await graph?.stop();
});

/** The answers `probe` gets, and whether A's items stayed the same around it. */
async function probeRoute(route: string, probe: Probe) {
  const before = await itemsOfA();
  if (namesIds(probe)) {
    const request = requestOf(route, probe, 'foreign');
    const b0 = await itemsOf('team-b');
    const foreignReply = await send(probe.as, request.method, request.path, probe);
    const b1 = await itemsOf('team-b');
    const missingRequest = requestOf(route, probe, 'missing');
    const missingReply = await send(probe.as, missingRequest.method, missingRequest.path, probe);
    const b2 = await itemsOf('team-b');
    const label = `${probe.as} ${request.method} ${request.path} (missing: ${missingRequest.path})`;
    expect(missingReply.status, label).toBe(probe.status ?? 404);
    expect(echoSwapped(foreignReply, probe), label).toEqual(missingReply);
    // Nor in what B's own items record of the two (an audit entry B could read back).
    expect(addedFor(b0, b1), `${label}: B's items`).toEqual(addedFor(b1, b2));
  } else {
    const request = requestOf(route, probe, 'missing');
    const reply = await send(probe.as, request.method, request.path, probe);
    const label = `${probe.as} ${request.method} ${request.path}`;
    if (probe.status !== undefined) expect(reply.status, label).toBe(probe.status);
    expect(reply.status, label).toBeLessThan(500);
    const text = JSON.stringify(reply.body);
    expect(
      leakable.filter((id) => text.includes(id)),
      `${label} shows A's ids`,
    ).toEqual([]);
  }
  expect(await itemsOfA(), `${probe.as} on ${route} changed A's items`).toEqual(before);
}

describe('Tenancy of every route of the local stack (the API, the pages, the console)', () => {
  it('holds a fixture for every route the stack serves, and none for a route it no longer has', () => {
    const served = e2e.stack.routes;
    const uncovered = served.filter((route) => !(route in ROUTES));
    const stale = Object.keys(ROUTES).filter((route) => !served.includes(route));
    expect(
      uncovered,
      `routes without a tenancy fixture: add a row for each to ROUTES in test/e2e/tenancy-fixtures.ts (its id parameters and which of A's objects they name, or why it is exempt)`,
    ).toEqual([]);
    expect(
      stale,
      'rows of ROUTES (test/e2e/tenancy-fixtures.ts) for routes the stack no longer serves',
    ).toEqual([]);
    expect(served.length).toBeGreaterThan(40);
  });

  it('probes every route the AWS functions serve: each is a route of the stack', () => {
    // Building the apps reads no port (test/api/route-split.test.ts); the pages check their public URL only.
    const deps = {
      authenticator: { authenticate: () => undefined },
      mcp: async () => new Response(null, { status: 204 }),
      publicBaseUrl: 'https://pages.example.com',
    };
    const functions: Record<string, Hono> = {
      api: createApiFunctionApp(deps as unknown as ApiDeps) as unknown as Hono,
      'workflow-write': createWorkflowWriteApp(deps as unknown as ApiDeps) as unknown as Hono,
      mcp: createMcpApp(deps as unknown as McpAppDeps) as unknown as Hono,
      'approval-http': signedPagesApp(deps as unknown as ApprovalAppDeps, deps as unknown as HumanTaskDeps),
    };
    const elsewhere = Object.entries(functions).flatMap(([name, app]) =>
      app.routes
        .filter((route) => route.method !== 'ALL')
        .map((route) => `${route.method} ${route.path}`)
        .filter((route) => !e2e.stack.routes.includes(route))
        .map((route) => `${name}: ${route}`),
    );
    expect(
      elsewhere,
      'routes served on AWS that the local stack does not serve (and so this check does not probe)',
    ).toEqual([]);
  });

  it.each(Object.entries(ROUTES))(
    "%s: A's id answers B as a missing id does, B sees none of A's ids, and nothing of A's changes",
    async (route, fixture) => {
      if ('exempt' in fixture) return;
      for (const probe of fixture.probes) await probeRoute(route, probe);
    },
  );

  it("left A's things as they were", async () => {
    const { run } = await asA('GET', `/v1/runs/${foreign.agentRun}`);
    expect(run.status).toBe('awaiting_approval');
    const graphRun = (await asA('GET', `/v1/runs/${foreign.graphRun}`)).run;
    expect(graphRun.status).toBe('running');
    const { workflow } = await asA('GET', `/v1/workflows/${foreign.agentWorkflow}`);
    expect(workflow).toMatchObject({ enabled: true, draftVersion: 2 });
    const { grant } = await asA('GET', `/v1/grants/${CLIENTS.a}`);
    expect(grant).toMatchObject({ version: 1, revoked: false });
  });
});

describe('Tenancy of every tool of the jobs MCP server', () => {
  const clients: Partial<Record<'clientB' | 'siblingA', Client>> = {};
  const mcp = (caller: 'clientB' | 'siblingA') => {
    const client = clients[caller];
    if (!client) throw new Error(`no MCP client for ${caller}`);
    return client;
  };
  beforeAll(async () => {
    for (const caller of ['clientB', 'siblingA'] as const)
      clients[caller] = await connectMcp(`${e2e.stack.url}/mcp`, bearer(keyOf[caller] ?? ''));
  });
  afterAll(async () => {
    for (const client of Object.values(clients)) await client?.close();
  });

  it('holds a fixture for every tool the server lists', async () => {
    const { tools } = await mcp('clientB').listTools();
    const listed = tools.map((tool) => tool.name);
    expect(
      listed.filter((name) => !(name in TOOLS)),
      'tools without a tenancy fixture: add a row for each to TOOLS in test/e2e/tenancy-fixtures.ts',
    ).toEqual([]);
    expect(Object.keys(TOOLS).filter((name) => !listed.includes(name))).toEqual([]);
  });

  describe.each(['clientB', 'siblingA'] as const)('as %s', (caller) => {
    it.each(Object.entries(TOOLS))(
      "%s: A's id answers as a missing id does, no answer shows A's ids, nothing of A's changes",
      async (name, fixture) => {
        const before = await itemsOfA();
        const args = (ids: 'foreign' | 'missing') => ({
          ...fixture.args,
          ...Object.fromEntries(
            Object.entries(fixture.ids ?? {}).map(([arg, kind]) => [
              arg,
              ids === 'foreign' ? foreign[kind] : missingOf(kind, caller),
            ]),
          ),
        });
        if (fixture.ids) {
          const foreignResult = await callTool(mcp(caller), name, args('foreign'));
          const missingResult = await callTool(mcp(caller), name, args('missing'));
          expect(missingResult.structuredContent?.error?.code).toBe('not_found');
          let text = JSON.stringify(foreignResult);
          for (const kind of Object.values(fixture.ids))
            text = text.replaceAll(foreign[kind], missingOf(kind, caller));
          expect(JSON.parse(text)).toEqual(missingResult);
        } else {
          const result = JSON.stringify(await callTool(mcp(caller), name, args('missing')));
          expect(leakable.filter((id) => result.includes(id))).toEqual([]);
        }
        expect(await itemsOfA()).toEqual(before);
      },
    );
  });
});
