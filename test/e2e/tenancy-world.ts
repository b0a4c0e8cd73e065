/**
 * The world of the tenancy check (tenancy-routes.test.ts): one local stack with owners A and B, A's objects of
 * every kind, and the requests a probe sends (tenancy-probe.ts) with A's ids or missing ones.
 */
import { expect } from 'vitest';
import { ownerAuditToken, runAuditToken } from '../../shared/api/audit-cursors.ts';
import { openFormState } from '../../shared/approvals-http/form-state.ts';
import { ApiClient } from '../../shared/cli/client.ts';
import { ownerSecretPrefix } from '../../shared/credentials/owner-key.ts';
import { signedTaskUrl } from '../../shared/human-tasks/notices.ts';
import { jobKeys } from '../../shared/jobs/records.ts';
import { humanTaskId } from '../../shared/schemas/human-task.ts';
import { jobIdOf } from '../../shared/schemas/job.ts';
import { encodeToken } from '../../shared/store/index.ts';
import { ownerSnapshot } from '../api/helpers.ts';
import { refundGraph, startRefund } from '../graph/support.ts';
import { baseGrant, clientKey, textFixture } from '../jobs/support.ts';
import { type GraphStack, startGraphStack } from '../support/graph-stack.ts';
import { missingRunId } from '../support/store.ts';
import {
  appendTurn,
  applyWorkflowText,
  awaitingApproval,
  type E2eStack,
  eventually,
  tokenOf,
} from './support.ts';
import {
  type Caller,
  type IdKind,
  type OwnKind,
  type OwnValue,
  type Probe,
  REF,
  type Value,
} from './tenancy-probe.ts';
import { agentDefinition, CLIENTS, FORGED, graphDefinition } from './tenancy-probe-builders.ts';

const KEY_A = `wfl_${'A'.repeat(32)}`;
const KEY_B = `wfl_${'B'.repeat(32)}`;
/** Alert topics the stack declares: one for A only, one for every owner. */
const TOPIC_OF_A = 'arn:aws:sns:eu-west-1:123456789012:tenancy-a-alerts';
const SHARED_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:tenancy-shared-alerts';
/** An approver the stack declares for A only; the others every owner may name. */
const APPROVER_OF_A = 'a-approver@example.com';

export { CLIENTS };

let graph: GraphStack;
export let e2e: E2eStack;
let origin: string;
let consoleCookie: string;
export const foreign = {} as Record<IdKind, string>;
/** B's own objects, named in a probe's path beside A's ids in its query or body. */
const ownB = {} as Record<OwnKind, string>;
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
  approvalLink: FORGED,
  // A nonce of nobody's (set with A's, nonceOfNobody) and a state nothing sealed.
  approvalNonce: '',
  approvalState: FORGED,
  humanTask: humanTaskId(missingRunId(), 'manager_review', 1),
  humanTaskLink: FORGED,
  humanTaskNonce: '',
  job: '', // per caller: missingJob
  client: 'nobody-granted',
  clientKey: clientKey('nobody-granted'),
  // Page tokens of a listing of nobody's: A's must be refused as theirs is.
  runsToken: Buffer.from(
    JSON.stringify({ pk: 'RUN#run_x', sk: 'RUN', gsi1pk: 'OWNER#nobody', gsi1sk: 'RUN#x' }),
  ).toString('base64url'),
  workflowsToken: Buffer.from(JSON.stringify({ pk: 'OWNER#nobody', sk: 'WF#wf_x' })).toString('base64url'),
  ...missingPageTokens(),
  secret: `${ownerSecretPrefix('wf/', 'team-nobody')}tenancy`,
  grantedClient: 'b-fresh-client',
  owner: 'team-nobody',
  alertTopic: 'arn:aws:sns:eu-west-1:123456789012:tenancy-undeclared',
  approver: 'nobody-approver@example.com',
  // Keys nobody used: each starts one run, or submits one job, of B's (its probe's one request with it).
  runKey: 'tenancy-fresh-run-key',
  jobKey: 'tenancy-fresh-job-key',
  versionTag: '"999"',
};
/**
 * The page tokens of listings of nobody's (a missing owner, run or grant), each made as its route makes them:
 * A's token must be refused as these are.
 */
function missingPageTokens() {
  const run = missingRunId();
  const key = (value: Record<string, string>) => encodeToken(value) ?? '';
  const start = { seq: 1, prevHash: '0'.repeat(64) };
  return {
    approvalsToken: key({ pk: 'APR#apr_x', sk: 'APR', gsi1pk: 'OWNER#nobody', gsi1sk: 'APR#x' }),
    humanTasksToken: key({ pk: `RUN#${run}`, sk: 'HTK#x', gsi1pk: 'OWNER#nobody', gsi1sk: 'HTK#x' }),
    auditToken: ownerAuditToken('nobody', {
      section: 'changes',
      changes: start,
      anchors: start,
      signed: { index: 0 },
    }),
    jobsToken: key(jobKeys.job('grant_none000', 1)),
    grantJobsToken: key(jobKeys.job('grant_none000', 1)),
    transcriptToken: key({ pk: `RUN#${run}`, sk: 'MSG#000000001' }),
    receiptsToken: key({ pk: `RUN#${run}`, sk: 'TOOL#x' }),
    runAuditToken: runAuditToken(run, { item: 1, ...start }),
    stepsToken: key({ pk: `RUN#${run}`, sk: 'STEP#triage' }),
  };
}
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

/** One request as `caller` (with `extra` headers); the body is JSON when the answer is, else its text. */
export async function send(
  caller: Caller,
  method: string,
  path: string,
  probe: Probe,
  extra: Record<string, string> = {},
): Promise<Reply> {
  const key = keyOf[caller];
  const headers: Record<string, string> = {
    ...extra,
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
    // requestOf has put B's ids in place of each OwnValue.
    const form = Object.entries(probe.form).map(([k, v]) => [k, v === 'B' ? KEY_B : String(v)]);
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

const isRef = (value: unknown): value is { [REF]: IdKind } =>
  value !== null && typeof value === 'object' && REF in value;

/** Each `ref(kind)` in a probe's JSON body, by its path (`credRefs.api.secret`, `nodes[0].id`). */
export function refsIn(json: unknown, path = ''): { path: string; kind: IdKind }[] {
  if (isRef(json)) return [{ path, kind: json[REF] }];
  if (Array.isArray(json)) return json.flatMap((item, i) => refsIn(item, `${path}[${i}]`));
  if (json === null || typeof json !== 'object') return [];
  return Object.entries(json).flatMap(([key, child]) => refsIn(child, path ? `${path}.${key}` : key));
}

/** The JSON body with each `ref(kind)` replaced by `id(kind)`. */
function withIds(json: unknown, id: (kind: IdKind) => string): unknown {
  if (isRef(json)) return id(json[REF]);
  if (Array.isArray(json)) return json.map((item) => withIds(item, id));
  if (json === null || typeof json !== 'object') return json;
  return Object.fromEntries(Object.entries(json).map(([key, child]) => [key, withIds(child, id)]));
}

const ownOf = (kind: OwnKind): string => {
  const id = ownB[kind];
  if (id === undefined) throw new Error(`the setup made no ${kind} of B's`);
  return id;
};

/**
 * The request of `probe` on `route` with A's ids (`ids = 'foreign'`) or missing ones: its path, the headers the
 * probe names, and the probe to send (B's ids and A's, or missing ones, in its body and form).
 */
export function requestOf(route: string, probe: Probe, ids: 'foreign' | 'missing') {
  const [method = '', pattern = ''] = route.split(' ');
  const id = (kind: IdKind) => (ids === 'foreign' ? foreign[kind] : missingOf(kind, probe.as));
  const ownValue = (v: OwnValue) => ownOf(ids === 'missing' && v.second ? v.second : v.own);
  const value = (v: Value) => (typeof v === 'string' ? id(v) : 'literal' in v ? v.literal : ownValue(v));
  const path = pattern.replace(/:(\w+)/g, (_m, name: string) => {
    const v = probe.params?.[name];
    if (v === undefined) throw new Error(`${route}: the fixture gives no value for :${name}`);
    return encodeURIComponent(value(v));
  });
  const query = new URLSearchParams(
    Object.entries(probe.query ?? {}).map(([name, v]) => [name, value(v)]),
  ).toString();
  const headers = Object.fromEntries(
    Object.entries(probe.headers ?? {}).map(([name, v]) => [name, value(v)]),
  );
  const sent: Probe = {
    ...probe,
    ...(probe.json === undefined ? {} : { json: withIds(probe.json, id) }),
    ...(probe.form === undefined
      ? {}
      : {
          form: Object.fromEntries(
            Object.entries(probe.form).map(([k, v]) => [
              k,
              typeof v === 'string' ? v : isRef(v) ? id(v[REF]) : ownValue(v),
            ]),
          ),
        }),
  };
  return { method, path: query ? `${path}?${query}` : path, headers, probe: sent };
}

/** The kinds of A's ids a probe names: in its path, its query, its headers, its JSON body, its form. */
const kindsIn = (probe: Probe): IdKind[] => [
  ...[
    ...Object.values(probe.params ?? {}),
    ...Object.values(probe.query ?? {}),
    ...Object.values(probe.headers ?? {}),
  ].filter((v): v is IdKind => typeof v === 'string'),
  ...refsIn(probe.json).map((r) => r.kind),
  ...Object.values(probe.form ?? {})
    .filter(isRef)
    .map((v) => v[REF]),
];

export const namesIds = (probe: Probe) => kindsIn(probe).length > 0;

/** `reply` (or B's items) with each of A's ids it echoes swapped for the missing id the other request carried. */
export function echoSwapped<T>(reply: T, probe: Probe): T {
  let text = JSON.stringify(reply);
  for (const kind of kindsIn(probe)) text = text.replaceAll(foreign[kind], missingOf(kind, probe.as));
  return JSON.parse(text);
}

/**
 * `value` with what differs between any two writes of B's own: the ids and keys the stack generates for B
 * (`<prefix>_` or `<prefix>-` and 32 hex digits, a waiting step's task token), B's counters (a job's number
 * under B's grant, which is its run's workflowVersion), times (an expiry in epoch seconds too), and where an
 * entry lands in B's own audit chain (its seq, its hashes, the signature over them). A's ids are kept as they
 * are: an answer or item showing one still differs.
 */
export function freshAsB<T>(value: T): T {
  const ofB = (generic: string) => (id: string) => (leakable.includes(id) ? id : generic);
  const text = JSON.stringify(value)
    .replace(/\b[a-z]+(?:-[a-z]+)*[_-][0-9a-f]{32}\b/g, ofB('<id of B>'))
    .replace(/\bjob_\d+g[A-Za-z0-9]+\b/g, ofB('<job of B>'))
    .replace(/\blsfn1\.[\w-]+\.[\w-]+/g, '<task token>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, '<time>')
    .replace(/\b[0-9a-f]{64}\b/g, '<hash>')
    .replace(/("(?:seq|anchorSeq|number|workflowVersion|expiresAtEpoch)\\?":)\d+/g, '$10')
    .replace(/\bJOB#\d{10}\b/g, 'JOB#<number>')
    .replace(/("signature\\?":\\?")[\w+/=]+/g, '$1<signature>')
    .replace(/#\d{9}\b/g, '#<seq>');
  return JSON.parse(text);
}

/** `reply` without the fields of its JSON body at `paths` (`job.status`): what a probe's `progress` names. */
export function withoutProgress(reply: Reply, paths: string[] = []): Reply {
  if (paths.length === 0 || typeof reply.body !== 'object' || reply.body === null) return reply;
  const body = structuredClone(reply.body) as Record<string, unknown>;
  for (const path of paths) {
    const names = path.split('.');
    const last = names.pop() ?? '';
    let at: unknown = body;
    for (const name of names) at = (at as Record<string, unknown> | undefined)?.[name];
    if (at !== null && typeof at === 'object') delete (at as Record<string, unknown>)[last];
  }
  return { ...reply, body };
}

/**
 * An approval page with its form's fresh values opened: the nonce (signed per render) as its claims without the
 * time and the random part, the sealed state as the approval and run it carries. What the page rests on (the
 * workflow head's revision, the run) stays compared; only what differs per render goes.
 */
export function openedForm(reply: Reply): Reply {
  if (typeof reply.body !== 'string' || !reply.body.includes('name="nonce"')) return reply;
  const nonce = /name="nonce" value="([^"]+)"/.exec(reply.body)?.[1] ?? '';
  const claims = JSON.parse(Buffer.from(nonce.split('.')[0] ?? '', 'base64url').toString('utf8'));
  const { iat: _iat, n: _n, ...kept } = claims;
  const body = reply.body
    .replace(/name="nonce" value="[^"]+"/, `name="nonce" value="${JSON.stringify(kept)}"`)
    .replace(/name="state" value="([^"]+)"/, (_m, state: string) => {
      const binding = { approvalId: claims.approvalId, approver: claims.approver, nonce };
      const opened = openFormState(state, binding, e2e.keyring);
      if (!opened.ok) throw new Error(`the approval page's form state does not open: ${opened.reason}`);
      return `name="state" value="${JSON.stringify(opened.load)}"`;
    });
  return { ...reply, body };
}

/** Every item of `owner`'s in the stack's table (by key, index key or owner attribute), as sorted JSON. */
export const itemsOf = (owner: string): Promise<string[]> => ownerSnapshot(e2e.stack.store, owner);

export const itemsOfA = () => itemsOf('team-a');
/** What the caller's owner got written by a request: B's answer to A's id may not differ even there. */
export const addedFor = (before: string[], after: string[]) => after.filter((item) => !before.includes(item));

export async function asA(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  key = KEY_A,
  headers: Record<string, string> = {},
) {
  const client = new ApiClient(e2e.stack.url, { kind: 'api-key', apiKey: key });
  // biome-ignore lint/suspicious/noExplicitAny: setup reads the ids it needs from the replies.
  return method === 'GET' ? client.get<any>(path) : (await client.post<any>(path, body, { headers })).body;
}

/**
 * Resolves once A's and B's items stop changing (two reads 300 ms apart agree): nothing of theirs moves on its
 * own for long (the waits are an hour and a day long), so what B's items gain around a probe is the probe's.
 */
export async function settled(): Promise<void> {
  let before = [await itemsOfA(), await itemsOf('team-b')];
  await eventually('A and B to settle', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = [await itemsOfA(), await itemsOf('team-b')];
    const same = JSON.stringify(now) === JSON.stringify(before);
    before = now;
    return same ? true : undefined;
  });
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
      { name: 'tenancy-b-own', turns: [appendTurn('a line of B'), { text: 'done' }] },
      textFixture('job-helper', 'Done: 42.'),
    ],
    externalEngines: { 'http-runtime': { enabled: true, settings: { endpoint: 'http://127.0.0.1:9' } } },
    alertTopics: [SHARED_TOPIC, { topicArn: TOPIC_OF_A, owners: ['team-a'] }],
    approvers: { '*': ['editor@example.com', 'manager@example.com'], 'team-a': [APPROVER_OF_A] },
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
  // A's alert topic and approver are A's to name (B's probes name them).
  await asA('POST', '/v1/workflows', {
    ...agentDefinition('tenancy-a-alerts'),
    destination: { type: 'alert', topicArn: TOPIC_OF_A },
    gates: { current_time: { mode: 'needs_approval', approvers: [APPROVER_OF_A] } },
  });
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
  // Started and submitted with an Idempotency-Key each: B's probes send the same keys (and the same bodies).
  foreign.runKey = 'tenancy-a-run-key';
  foreign.jobKey = 'tenancy-a-job-key';
  foreign.externalRun = (
    await asA('POST', `/v1/workflows/${foreign.externalWorkflow}/runs`, { input: {} }, KEY_A, {
      'Idempotency-Key': foreign.runKey,
    })
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
  foreign.clientKey = clientKey(CLIENTS.sibling);
  foreign.job = (
    await asA('POST', '/v1/jobs', { prompt: 'What time is it?' }, clientKey(CLIENTS.a), {
      'Idempotency-Key': foreign.jobKey,
    })
  ).job.jobId;
  const waitingA = await awaitingApproval(a, foreign.agentRun);
  foreign.approval = waitingA.approval.approvalId;
  foreign.approvalLink = tokenOf(waitingA.link);
  const task = await eventually('the open manager review', async () =>
    (await e2e.stack.store.listRunHumanTasks(foreign.graphRun)).find((t) => t.status === 'open'),
  );
  foreign.humanTask = task.taskId;
  foreign.humanTaskLink = tokenOf(signedTaskUrl(e2e.stack.url, e2e.keyring, task, task.assignees[0] ?? ''));
  // The forms A's approver and assignee were shown: B's probes post their nonce and sealed state.
  const approvalForm = await formOf(`/approvals/${foreign.approval}`, foreign.approvalLink);
  foreign.approvalNonce = approvalForm.nonce;
  foreign.approvalState = approvalForm.state ?? '';
  foreign.humanTaskNonce = (await formOf(`/human-tasks/${foreign.humanTask}`, foreign.humanTaskLink)).nonce;
  MISSING.approvalNonce = nonceOfNobody(foreign.approvalNonce, foreign.approval, MISSING.approval);
  MISSING.humanTaskNonce = nonceOfNobody(foreign.humanTaskNonce, foreign.humanTask, MISSING.humanTask);
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
  Object.assign(foreign, await pageTokensOfA());
  foreign.secret = `${ownerSecretPrefix('wf/', 'team-a')}tenancy`;
  foreign.grantedClient = CLIENTS.sibling;
  foreign.owner = 'team-a';
  foreign.alertTopic = TOPIC_OF_A;
  foreign.approver = APPROVER_OF_A;
  const { workflow: externalHead } = await asA('GET', `/v1/workflows/${foreign.externalWorkflow}`);
  foreign.versionTag = `"${externalHead.latestVersion}"`;
  const unissued = Object.entries(foreign).filter(([, id]) => typeof id !== 'string' || id === '');
  expect(unissued, "A's ids and page tokens the setup did not get").toEqual([]);
  // B's own: an agent workflow with an open draft (version 2), and an external run that ended.
  const b = { ...e2e, client: new ApiClient(e2e.stack.url, { kind: 'api-key', apiKey: KEY_B }) };
  ownB.workflow = await applyWorkflowText(
    b,
    'tenancy-b-own',
    GATED.replace('tenancy-a-agent', 'tenancy-b-own'),
  );
  await asA(
    'POST',
    `/v1/workflows/${ownB.workflow}/versions?draft=true`,
    agentDefinition('tenancy-b-own'),
    KEY_B,
  );
  ownB.graph = (
    await asA('POST', '/v1/workflows', graphDefinition('tenancy-b-graph', 'editor@example.com'), KEY_B)
  ).workflow.workflowId;
  await asA(
    'POST',
    `/v1/workflows/${ownB.graph}/versions?draft=true`,
    graphDefinition('tenancy-b-graph', 'manager@example.com'),
    KEY_B,
  );
  const external = await applyWorkflowText(
    b,
    'tenancy-b-external',
    EXTERNAL.replace('tenancy-a-external', 'tenancy-b-external'),
  );
  ownB.externalWorkflow = external;
  ownB.run = (await asA('POST', `/v1/workflows/${external}/runs`, { input: {} }, KEY_B)).run.runId;
  // And B's two runs waiting for approval, with their approver's signed links and the nonces of their rendered
  // forms (the approval pages' probes: a decision is made once, so its probe decides both).
  for (const suffix of ['', '2'] as const) {
    const gatedB = (await asA('POST', `/v1/workflows/${ownB.workflow}/runs`, { input: {} }, KEY_B)).run.runId;
    const waiting = await awaitingApproval(b, gatedB);
    const link = tokenOf(waiting.link);
    const approvalId = waiting.approval.approvalId;
    ownB[`approval${suffix}`] = approvalId;
    ownB[`approvalLink${suffix}`] = link;
    ownB[`approvalNonce${suffix}`] = (await formOf(`/approvals/${approvalId}`, link)).nonce;
  }
  // And B's graph run waiting on a human task, with its assignee's link and the nonce of its rendered form.
  const refundB = await applyWorkflowText(b, 'refund-large', refundGraph('refund-large', graph.payments.url));
  const graphRunB = await startRefund(b, refundB, 'My parcel never arrived. Customer c_99.');
  const taskB = await eventually("B's open manager review", async () =>
    (await e2e.stack.store.listRunHumanTasks(graphRunB)).find((t) => t.status === 'open'),
  );
  ownB.humanTask = taskB.taskId;
  ownB.humanTaskLink = tokenOf(signedTaskUrl(e2e.stack.url, e2e.keyring, taskB, taskB.assignees[0] ?? ''));
  ownB.humanTaskNonce = (await formOf(`/human-tasks/${taskB.taskId}`, ownB.humanTaskLink)).nonce;
  await eventually("B's external run to end", async () => {
    const { run } = await asA('GET', `/v1/runs/${ownB.run}`, undefined, KEY_B);
    return ['done', 'failed'].includes(run.status) ? true : undefined;
  });
  leakable = Object.entries(foreign)
    .filter(
      ([kind]) =>
        // Names and keys B may use too (its own runs and jobs record the keys it sent).
        ![
          'client',
          'grantedClient',
          'secret',
          'owner',
          'alertTopic',
          'approver',
          'runKey',
          'jobKey',
          'versionTag',
        ].includes(kind) && !kind.endsWith('Token'),
    )
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
  await settled();
}

/**
 * A nonce of the shape `nonce` has (`<claims>.<signature>`, a key of the stack's named) for a page of nobody's:
 * its claims name `missing` where they named `id`, under a signature no key made.
 */
function nonceOfNobody(nonce: string, id: string, missing: string): string {
  const claims = Buffer.from(nonce.split('.')[0] ?? '', 'base64url')
    .toString('utf8')
    .replaceAll(id, missing);
  return `${Buffer.from(claims, 'utf8').toString('base64url')}.${'B'.repeat(43)}`;
}

/** The nonce and sealed state (approval pages only) of the form on the page at `path` opened with link `t`. */
async function formOf(path: string, t: string): Promise<{ nonce: string; state?: string }> {
  const page = await fetch(`${e2e.stack.url}${path}?t=${encodeURIComponent(t)}`);
  const text = await page.text();
  const nonce = /name="nonce" value="([^"]+)"/.exec(text)?.[1];
  if (!nonce) throw new Error(`the page ${path} has no form nonce (${page.status})`);
  const state = /name="state" value="([^"]+)"/.exec(text)?.[1];
  return state === undefined ? { nonce } : { nonce, state };
}

/**
 * A's page tokens of every listing that takes one: as the API issues them (a first page of one), or, for the
 * audit answers (paged by size, and A's are short) and receipts (A has none), made as the route makes its own.
 */
async function pageTokensOfA(): Promise<Partial<Record<IdKind, string | undefined>>> {
  const first = async (path: string, key = KEY_A) =>
    (await asA('GET', `${path}?limit=1`, undefined, key)).nextToken;
  const start = { seq: 1, prevHash: '0'.repeat(64) };
  return {
    approvalsToken: await first('/v1/approvals'),
    humanTasksToken: await first('/v1/human-tasks'),
    jobsToken: await first('/v1/jobs', clientKey(CLIENTS.a)),
    grantJobsToken: await first(`/v1/grants/${CLIENTS.a}/jobs`),
    transcriptToken: await first(`/v1/runs/${foreign.agentRun}/transcript`),
    // A's runs have no receipt yet (the gated call waits for its approval): a key of the run's ledger rows.
    receiptsToken: encodeToken({ pk: `RUN#${foreign.agentRun}`, sk: 'TOOL#toolu_tenancy' }),
    stepsToken: await first(`/v1/runs/${foreign.graphRun}/steps`),
    runAuditToken: runAuditToken(foreign.agentRun, { item: 1, ...start }),
    auditToken: ownerAuditToken('team-a', {
      section: 'changes',
      changes: start,
      anchors: start,
      signed: { index: 0 },
    }),
  };
}

export async function stopTenancyWorld(): Promise<void> {
  await graph?.stop();
}
