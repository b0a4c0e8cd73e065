/**
 * Tenancy, walked surface by surface on the local stack: owner B can neither read, use nor trigger anything of
 * owner A's. Every foreign id answers exactly as a missing id does, and nothing of A's changes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../shared/cli/client.ts';
import {
  appendTurn,
  applyWorkflowText,
  awaitingApproval,
  createOwnTable,
  type E2eStack,
  gatedNotesWorkflow,
  removeDir,
  startE2eStack,
  startRun,
  tempDataDir,
} from './support.ts';

const KEY_A = `wfl_${'A'.repeat(32)}`;
const KEY_B = `wfl_${'B'.repeat(32)}`;

let e2e: E2eStack;
let dataDir: string;
const a: { workflowId: string; runId: string; approvalId: string; eventWorkflowId: string } = {
  workflowId: '',
  runId: '',
  approvalId: '',
  eventWorkflowId: '',
};
const MISSING = { workflowId: 'wf_0000000000000000', runId: 'run_0000000000000000' };

type Reply = { status: number; body: unknown };
async function as(key: string, method: string, path: string, body?: unknown): Promise<Reply> {
  const response = await fetch(`${e2e.stack.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'POST' && path.endsWith('/runs') ? { 'idempotency-key': `k-${Math.random()}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

const EVENT_WORKFLOW = `name: tenancy-event
description: started by an order event
model: { id: claude-sonnet-5-5, maxTokens: 512 }
prompt:
  system: Say done.
allowedActions: [current_time]
trigger:
  type: event
  pattern: { source: [com.example.orders] }
budget: { maxUsdPerRun: 1, maxTurns: 2, maxToolCallsPerTurn: 1 }
`;

beforeAll(async () => {
  dataDir = await tempDataDir();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(
    join(dataDir, 'api-keys.json'),
    JSON.stringify({ keys: { [KEY_A]: { owner: 'team-a' }, [KEY_B]: { owner: 'team-b' } } }),
  );
  e2e = await startE2eStack(await createOwnTable(), {
    dataDir,
    fixtures: [
      { name: 'tenancy-a', turns: [appendTurn('a line'), { text: 'done' }] },
      { name: 'tenancy-event', turns: [{ text: 'done' }] },
    ],
  });
  const asA = { ...e2e, client: new ApiClient(e2e.stack.url, { kind: 'api-key', apiKey: KEY_A }) };
  a.workflowId = await applyWorkflowText(asA, 'tenancy-a', gatedNotesWorkflow('tenancy-a'));
  a.eventWorkflowId = await applyWorkflowText(asA, 'tenancy-event', EVENT_WORKFLOW);
  a.runId = await startRun(asA, a.workflowId);
  a.approvalId = (await awaitingApproval(e2e, a.runId)).approval.approvalId;
}, 90_000);

afterAll(async () => {
  await e2e?.stack.stop();
  await removeDir(dataDir);
});

type Route = [label: string, method: string, path: (ids: typeof MISSING) => string, body?: unknown];
const BY_ID: Route[] = [
  ['read a workflow', 'GET', (ids) => `/v1/workflows/${ids.workflowId}`],
  ['read a version', 'GET', (ids) => `/v1/workflows/${ids.workflowId}/versions/1`],
  ['disable a workflow', 'POST', (ids) => `/v1/workflows/${ids.workflowId}/disable`],
  ['enable a workflow', 'POST', (ids) => `/v1/workflows/${ids.workflowId}/enable`],
  ['delete a workflow', 'DELETE', (ids) => `/v1/workflows/${ids.workflowId}`],
  ['start a run', 'POST', (ids) => `/v1/workflows/${ids.workflowId}/runs`, { input: {} }],
  ['read a run', 'GET', (ids) => `/v1/runs/${ids.runId}`],
  ['read a transcript', 'GET', (ids) => `/v1/runs/${ids.runId}/transcript`],
  ['read an audit chain', 'GET', (ids) => `/v1/runs/${ids.runId}/audit`],
  ['cancel a run', 'POST', (ids) => `/v1/runs/${ids.runId}/cancel`],
];

describe("Tenancy: owner B and owner A's things", () => {
  it.each(BY_ID)('B cannot %s of A: the same 404 as a missing id', async (_label, method, path, body) => {
    // Act
    const foreign = await as(KEY_B, method, path({ workflowId: a.workflowId, runId: a.runId }), body);
    const missing = await as(KEY_B, method, path(MISSING), body);

    // Assess
    expect(foreign.status).toBe(404);
    expect(foreign).toEqual(missing);
  });

  it("lists none of A's workflows, runs or approvals to B", async () => {
    // Act
    const workflows = JSON.stringify((await as(KEY_B, 'GET', '/v1/workflows')).body);
    const runs = JSON.stringify((await as(KEY_B, 'GET', '/v1/runs')).body);
    const approvals = JSON.stringify((await as(KEY_B, 'GET', '/v1/approvals?status=pending')).body);

    // Assess
    expect(workflows).not.toContain(a.workflowId);
    expect(runs).not.toContain(a.runId);
    expect(approvals).not.toContain(a.approvalId);
  });

  it("does not show A's approval links in B's inbox", async () => {
    // Act
    const response = await fetch(`${e2e.stack.url}/local/inbox`, {
      headers: { authorization: `Bearer ${KEY_B}` },
    });

    // Assess
    expect(await response.text()).not.toContain(a.approvalId);
  });

  it.each(['/v1/events', '/local/events'])(
    "B's event that matches A's event workflow starts nothing of A's (%s)",
    async (route) => {
      // Act
      const reply = await as(KEY_B, 'POST', route, {
        Entries: [{ Source: 'com.example.orders', DetailType: 'Order Placed', Detail: '{"total":1}' }],
      });
      const runsOfA = JSON.stringify((await as(KEY_A, 'GET', '/v1/runs')).body);

      // Assess
      expect(reply.status).toBe(200);
      expect(reply.body).toMatchObject({ runs: [] });
      expect(runsOfA).not.toContain('"type":"event"');
    },
  );

  it("B cannot stamp an event as A's: 400 naming the field, nothing starts", async () => {
    // Act
    const reply = await as(KEY_B, 'POST', '/v1/events', {
      Entries: [
        {
          Source: 'com.example.orders',
          DetailType: 'Order Placed',
          Detail: JSON.stringify({ 'wf-owner': 'team-a', total: 1 }),
        },
      ],
    });
    const runsOfA = JSON.stringify((await as(KEY_A, 'GET', '/v1/runs')).body);

    // Assess
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body)).toContain('Entries[0].Detail.wf-owner');
    expect(runsOfA).not.toContain('"type":"event"');
  });

  it("A's own event starts A's event workflow (the fence is not a wall)", async () => {
    // Act
    const reply = await as(KEY_A, 'POST', '/v1/events', {
      Entries: [{ Source: 'com.example.orders', DetailType: 'Order Placed', Detail: '{"total":2}' }],
    });

    // Assess
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ runs: [{ workflowId: a.eventWorkflowId, created: true }] });
  });

  it("B cannot name A's credential secret: 400 naming the field, nothing saved", async () => {
    // Prepare: a workflow of B's that would inject A's secret into a request to a host B chooses.
    const body = {
      name: 'tenancy-steal',
      description: "tries to use another owner's secret",
      model: { id: 'claude-sonnet-5-5', maxTokens: 512 },
      prompt: { system: 'Post the token.' },
      allowedActions: ['current_time'],
      credRefs: { token: { secret: 'wf/team-a/site-token' } },
      trigger: { type: 'on_demand' },
      budget: { maxUsdPerRun: 1, maxTurns: 2, maxToolCallsPerTurn: 1 },
    };

    // Act
    const reply = await as(KEY_B, 'POST', '/v1/workflows', body);
    const workflowsOfB = JSON.stringify((await as(KEY_B, 'GET', '/v1/workflows')).body);

    // Assess
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body)).toContain('credRefs.token.secret');
    expect(workflowsOfB).not.toContain('tenancy-steal');
  });

  it("left A's things as they were: the run still waits, the workflows are enabled", async () => {
    // Act
    const run = (await as(KEY_A, 'GET', `/v1/runs/${a.runId}`)).body as { run: { status: string } };
    const workflow = (await as(KEY_A, 'GET', `/v1/workflows/${a.workflowId}`)).body as {
      workflow: { enabled: boolean };
    };

    // Assess
    expect(run.run.status).toBe('awaiting_approval');
    expect(workflow.workflow.enabled).toBe(true);
  });
});
