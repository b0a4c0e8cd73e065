/**
 * The stack of the tenancy check (tenancy-routes.test.ts): one local stack with owners A and B, their keys and
 * clients' keys, the alert topics and approvers it declares, B signed in to its console, and A's (or any
 * key's) requests through the CLI's client. tenancy-world.ts starts it and makes A's and B's objects.
 */
import { expect } from 'vitest';
import { ApiClient } from '../../shared/cli/client.ts';
import { refundGraph } from '../graph/support.ts';
import { clientKey, textFixture } from '../jobs/support.ts';
import { type GraphStack, startGraphStack } from '../support/graph-stack.ts';
import { appendTurn, type E2eStack } from './support.ts';
import { CLIENTS } from './tenancy-probe-builders.ts';

export const KEY_A = `wfl_${'A'.repeat(32)}`;
export const KEY_B = `wfl_${'B'.repeat(32)}`;
/** Alert topics the stack declares: one for A only, one for every owner. */
export const TOPIC_OF_A = 'arn:aws:sns:eu-west-1:123456789012:tenancy-a-alerts';
const SHARED_TOPIC = 'arn:aws:sns:eu-west-1:123456789012:tenancy-shared-alerts';
/** An approver the stack declares for A only; the others every owner may name. */
export const APPROVER_OF_A = 'a-approver@example.com';

let graph: GraphStack;
export let e2e: E2eStack;
/** The stack's own origin: the pages' same-origin rule is met by a browser there. */
export let origin: string;
/** B's console session. */
export let consoleCookie: string;

/** The owner's workflow client of `key`, as applyWorkflowText and the run helpers take it. */
export const ownerOf = (key: string) => ({
  ...e2e,
  client: new ApiClient(e2e.stack.url, { kind: 'api-key', apiKey: key }),
});

/** The refund graph of the stack's payments server. */
export const refundOfStack = () => refundGraph('refund-large', graph.payments.url);

/** Starts the stack with A's and B's keys and their clients' keys, once per test file. */
export async function startTenancyStack(): Promise<void> {
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
}

/** B in the console: the session the consoleB probes send. */
export async function signInConsoleB(): Promise<void> {
  const signIn = await fetch(`${e2e.stack.url}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: `key=${KEY_B}`,
  });
  expect(signIn.status).toBe(303);
  consoleCookie = /(wf_console=[^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1] ?? '';
}

export async function stopTenancyStack(): Promise<void> {
  await graph?.stop();
}

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
