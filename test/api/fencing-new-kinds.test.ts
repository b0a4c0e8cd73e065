/**
 * Owner fencing of every route the new kinds of work added (graph runs, receipts, drafts, spend, grants, jobs),
 * table-driven like fencing.test.ts: owner A using owner B's ids gets exactly the answer (status and body) a
 * missing id gets, and nothing of B's changes: every item of B's in the table is byte-for-byte the same, no
 * execution starts or stops, no task token is answered and no human task is closed.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiKeyAuthenticator, createApiApp } from '../../shared/api/index.ts';
import { inProcessApi } from '../../shared/console/in-process.ts';
import { localConsole } from '../../shared/console/local.ts';
import type { HumanTaskPort } from '../../shared/graph-run/human-task-port.ts';
import type { ExecutionsPort, GraphExecutionsPort } from '../../shared/runs/index.ts';
import { localTriggerSync } from '../../shared/triggers-sync/local.ts';
import { refundGraph } from '../graph/fixtures.ts';
import { baseGrant } from '../jobs/support.ts';
import { FixedClock, randomIds, testStore, uniqueOwner } from '../support/store.ts';
import {
  clientFor,
  ownerSnapshot,
  ownTableName,
  RecordingExecutions,
  testEngineRegistry,
} from './helpers.ts';

/** A table of this file's own: `ownerSnapshot` scans it. */
const store = testStore(await ownTableName());
const graphStarts: string[] = [];
const externalStarts: string[] = [];
/** Records starts of every machine (agent, graph, external) and every stop. */
class AllKindsExecutions extends RecordingExecutions implements ExecutionsPort {
  readonly graph: GraphExecutionsPort = {
    start: async (name: string) => {
      graphStarts.push(name);
      return { executionArn: `arn:aws:states:local:000000000000:execution:wf-graph:${name}` };
    },
  };
  readonly external: GraphExecutionsPort = {
    start: async (name: string) => {
      externalStarts.push(name);
      return { executionArn: `arn:aws:states:local:000000000000:execution:wf-external:${name}` };
    },
  };
}
const executions = new AllKindsExecutions();
const tokensAnswered: string[] = [];
const tasksClosed: string[] = [];
const humanTasks: HumanTaskPort = {
  request: async () => {},
  close: async ({ runId }) => {
    tasksClosed.push(runId);
  },
};
const owners = { a: uniqueOwner(), b: uniqueOwner() };
const suffix = randomUUID().slice(0, 8);
const clients = { a: `a-bot-${suffix}`, b: `b-bot-${suffix}` };
const keys = {
  a: `key-a-${randomUUID()}`,
  b: `key-b-${randomUUID()}`,
  aClient: `key-a-client-${randomUUID()}`,
  bClient: `key-b-client-${randomUUID()}`,
};
const authenticator = apiKeyAuthenticator(
  JSON.stringify({
    keys: {
      [keys.a]: { owner: owners.a },
      [keys.b]: { owner: owners.b },
      [keys.aClient]: { owner: owners.a, client: clients.a },
      [keys.bClient]: { owner: owners.b, client: clients.b },
    },
  }),
);
// The console calls this same API in-process as its signed-in owner (shared/console/in-process.ts).
const inProcess = inProcessApi(authenticator);
const clock = new FixedClock();
const app = createApiApp({
  store,
  executions,
  clock,
  ids: randomIds,
  authenticator: inProcess.authenticator,
  triggerSync: localTriggerSync(store),
  externalEngines: testEngineRegistry(),
  graph: {
    taskTokens: {
      sendSuccess: async (token) => {
        tokensAnswered.push(token);
      },
    },
    humanTasks,
  },
});
const ORIGIN = 'http://127.0.0.1:8787';
const consoleApp = localConsole({
  authenticator,
  inProcess,
  fetchApi: (r) => app.fetch(r),
  clock,
  origin: ORIGIN,
});
const as = {
  a: clientFor(app, keys.a),
  b: clientFor(app, keys.b),
  aClient: clientFor(app, keys.aClient),
  bClient: clientFor(app, keys.bClient),
};

type Ids = {
  graphWorkflowId: string;
  graphRunId: string;
  externalWorkflowId: string;
  externalRunId: string;
  clientId: string;
  jobId: string;
};
let foreign: Ids;
const missing: Ids = {
  graphWorkflowId: 'wf_missing0000000000',
  graphRunId: 'run_missing0000000000',
  externalWorkflowId: 'wf_missing0000000001',
  externalRunId: 'run_missing0000000001',
  clientId: `nobody-${suffix}`,
  jobId: 'job_missing0000000000',
};

const graphDefinition = () => ({ ...refundGraph(), name: `refund-${randomUUID().slice(0, 8)}` });
const externalDefinition = () => ({
  kind: 'external',
  name: `nightly-${randomUUID().slice(0, 8)}`,
  engine: 'http-runtime',
  mode: 'shadow',
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
});

beforeAll(async () => {
  const graph = await as.b.post('/v1/workflows', graphDefinition());
  expect(graph.status).toBe(201);
  const graphWorkflowId = graph.body.workflow.workflowId;
  const graphRun = await as.b.post(`/v1/workflows/${graphWorkflowId}/runs`, {
    input: { message: 'the vase broke' },
  });
  expect(graphRun.status).toBe(201);
  // An open draft (version 2) for the draft routes.
  const draft = await as.b.post(`/v1/workflows/${graphWorkflowId}/versions?draft=true`, {
    ...graphDefinition(),
    name: graph.body.workflow.name,
  });
  expect(draft.status).toBe(201);
  const external = await as.b.post('/v1/workflows', externalDefinition());
  expect(external.status).toBe(201);
  const externalWorkflowId = external.body.workflow.workflowId;
  const externalRun = await as.b.post(`/v1/workflows/${externalWorkflowId}/runs`, { input: {} });
  expect(externalRun.status).toBe(201);
  const grant = await as.b.post('/v1/grants', { clientId: clients.b, grant: baseGrant() });
  expect(grant.status).toBe(201);
  expect((await as.a.post('/v1/grants', { clientId: clients.a, grant: baseGrant() })).status).toBe(201);
  const job = await as.bClient.post('/v1/jobs', { prompt: 'What time is it?' });
  expect(job.status).toBe(202);
  expect((await ownerSnapshot(store, owners.b)).join('\n')).toContain(graphRun.body.run.runId);
  foreign = {
    graphWorkflowId,
    graphRunId: graphRun.body.run.runId,
    externalWorkflowId,
    externalRunId: externalRun.body.run.runId,
    clientId: clients.b,
    jobId: job.body.job.jobId,
  };
});

type Caller = 'a' | 'aClient';
type Route = [
  label: string,
  caller: Caller,
  request: (ids: Ids) => [method: string, path: string, body?: unknown],
];

const grantChange = () => ({ grant: baseGrant({ maxTurns: 4 }) });
const routes: Route[] = [
  ['GET graph run steps', 'a', (ids) => ['GET', `/v1/runs/${ids.graphRunId}/steps`]],
  ['POST graph run pause', 'a', (ids) => ['POST', `/v1/runs/${ids.graphRunId}/pause`]],
  ['POST graph run resume', 'a', (ids) => ['POST', `/v1/runs/${ids.graphRunId}/resume`]],
  ['POST graph step retry', 'a', (ids) => ['POST', `/v1/runs/${ids.graphRunId}/steps/triage/retry`]],
  ['POST graph run cancel', 'a', (ids) => ['POST', `/v1/runs/${ids.graphRunId}/cancel`]],
  ['GET graph run', 'a', (ids) => ['GET', `/v1/runs/${ids.graphRunId}`]],
  ['GET graph run receipts', 'a', (ids) => ['GET', `/v1/runs/${ids.graphRunId}/receipts`]],
  ['GET graph run audit', 'a', (ids) => ['GET', `/v1/runs/${ids.graphRunId}/audit`]],
  ['GET external run receipts', 'a', (ids) => ['GET', `/v1/runs/${ids.externalRunId}/receipts`]],
  ['POST external run cancel', 'a', (ids) => ['POST', `/v1/runs/${ids.externalRunId}/cancel`]],
  ['POST external run start', 'a', (ids) => ['POST', `/v1/workflows/${ids.externalWorkflowId}/runs`, {}]],
  [
    'POST graph run start',
    'a',
    (ids) => ['POST', `/v1/workflows/${ids.graphWorkflowId}/runs`, { input: { message: 'x' } }],
  ],
  ['GET workflow spend', 'a', (ids) => ['GET', `/v1/workflows/${ids.graphWorkflowId}/spend`]],
  [
    'POST draft version',
    'a',
    (ids) => ['POST', `/v1/workflows/${ids.externalWorkflowId}/versions?draft=true`, externalDefinition()],
  ],
  [
    'PUT draft version',
    'a',
    (ids) => ['PUT', `/v1/workflows/${ids.graphWorkflowId}/versions/2`, graphDefinition()],
  ],
  ['POST publish draft', 'a', (ids) => ['POST', `/v1/workflows/${ids.graphWorkflowId}/versions/2/publish`]],
  ['GET draft version', 'a', (ids) => ['GET', `/v1/workflows/${ids.graphWorkflowId}/versions/2`]],
  ['GET grant', 'a', (ids) => ['GET', `/v1/grants/${ids.clientId}`]],
  ['GET grant history', 'a', (ids) => ['GET', `/v1/grants/${ids.clientId}/history`]],
  ['POST grant narrow', 'a', (ids) => ['POST', `/v1/grants/${ids.clientId}/narrow`, grantChange()]],
  ['POST grant widen', 'a', (ids) => ['POST', `/v1/grants/${ids.clientId}/widen`, grantChange()]],
  ['POST grant revoke', 'a', (ids) => ['POST', `/v1/grants/${ids.clientId}/revoke`]],
  ['GET job (client)', 'aClient', (ids) => ['GET', `/v1/jobs/${ids.jobId}`]],
  ['DELETE job (client)', 'aClient', (ids) => ['DELETE', `/v1/jobs/${ids.jobId}`]],
  ['POST job cancel (client)', 'aClient', (ids) => ['POST', `/v1/jobs/${ids.jobId}/cancel`]],
];

async function send(caller: Caller, method: string, path: string, body: unknown) {
  const client = as[caller];
  if (method === 'GET') return client.get(path);
  if (method === 'DELETE') return client.delete(path);
  if (method === 'PUT')
    return client.call('PUT', path, JSON.stringify(body), {
      headers: { 'content-type': 'application/json' },
    });
  return client.post(path, body);
}

describe('Owner fencing of the new kinds', () => {
  it.each(routes)(
    '%s: another owner’s id gets the same 404 as a missing id, and nothing of theirs changes',
    async (_label, caller, route) => {
      const before = await ownerSnapshot(store, owners.b);
      const counts = [executions.starts.length, graphStarts.length, externalStarts.length];
      const [method, path, body] = route(foreign);
      const [, missingPath, missingBody] = route(missing);
      const foreignReply = await send(caller, method, path, body);
      const missingReply = await send(caller, method, missingPath, missingBody);
      expect(foreignReply.status).toBe(404);
      expect(foreignReply.body).toEqual(missingReply.body);
      expect(foreignReply.body.error.code).toBe('not_found');
      expect(await ownerSnapshot(store, owners.b)).toEqual(before);
      expect([executions.starts.length, graphStarts.length, externalStarts.length]).toEqual(counts);
      expect(executions.stops).toEqual([]);
      expect(tokensAnswered).toEqual([]);
      expect(tasksClosed).toEqual([]);
    },
  );

  it("lists none of the other owner's grants or jobs", async () => {
    const grants = await as.a.get('/v1/grants');
    expect(grants.body.grants.map((g: { clientId: string }) => g.clientId)).toEqual([clients.a]);
    const jobs = await as.aClient.get('/v1/jobs');
    expect(jobs.status).toBe(200);
    expect(jobs.body.items ?? jobs.body.jobs).toEqual([]);
  });

  it("leaves the other owner's grant and draft as they were", async () => {
    const grant = await as.b.get(`/v1/grants/${clients.b}`);
    expect(grant.body.grant).toMatchObject({ version: 1, revoked: false });
    const draft = await as.b.get(`/v1/workflows/${foreign.graphWorkflowId}/versions/2`);
    expect(draft.body.version.status).toBe('draft');
  });
});

describe('Owner fencing of the console pages and actions', () => {
  let cookie: string;
  beforeAll(async () => {
    const signIn = await consoleApp.request('/console/login', {
      method: 'POST',
      body: `key=${keys.a}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
    });
    expect(signIn.status).toBe(303);
    cookie = /(wf_console=[^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1] ?? '';
  });
  const page = async (method: 'GET' | 'POST', path: string) => {
    const response = await consoleApp.request(path, {
      method,
      headers: { cookie, origin: ORIGIN, 'sec-fetch-site': 'same-origin' },
    });
    return { status: response.status, body: await response.text() };
  };

  it.each<[string, 'GET' | 'POST', (ids: Ids) => string]>([
    ['graph run page', 'GET', (ids) => `/console/runs/${ids.graphRunId}`],
    ['external run page', 'GET', (ids) => `/console/runs/${ids.externalRunId}`],
    ['graph run cancel', 'POST', (ids) => `/console/runs/${ids.graphRunId}/cancel`],
    ['external run cancel', 'POST', (ids) => `/console/runs/${ids.externalRunId}/cancel`],
  ])(
    '%s: a foreign id draws the same page as a missing one, and changes nothing',
    async (_l, method, path) => {
      const before = await ownerSnapshot(store, owners.b);
      const foreignPage = await page(method, path(foreign));
      const missingPage = await page(method, path(missing));
      expect(foreignPage.status).toBe(404);
      expect(foreignPage).toEqual(missingPage);
      expect(await ownerSnapshot(store, owners.b)).toEqual(before);
      expect(executions.stops).toEqual([]);
    },
  );

  it("lists none of the other owner's runs, even filtered by their workflow id", async () => {
    const listed = await page('GET', `/console/runs?workflowId=${foreign.graphWorkflowId}`);
    expect(listed.status).toBe(200);
    expect(listed.body).not.toContain(foreign.graphRunId);
    const workflows = await page('GET', '/console/workflows');
    expect(workflows.body).not.toContain(foreign.graphWorkflowId);
  });
});
