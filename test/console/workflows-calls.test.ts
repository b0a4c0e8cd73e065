/**
 * The workflows page costs a bounded number of API calls a page, however many workflows are on it: the list
 * call carries each workflow's kind, trigger, newest run and today's spend (`include=summary`). Counted by
 * wrapping the console's API port over the real API app on DynamoDB Local. Before, the page made one call
 * to list and three per workflow. The summary is the caller's own: another owner's workflows, runs and spend
 * never appear.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_COOKIE, createConsoleApp } from '../../shared/console/app.ts';
import type { ConsoleApi } from '../../shared/console/deps.ts';
import { sessionTable } from '../../shared/local/sessions.ts';
import { keys } from '../../shared/store/keys.ts';
import { apiHarness, definition } from '../api/helpers.ts';
import { refundGraph } from '../graph/fixtures.ts';
import { uniqueOwner } from '../support/store.ts';
import { textOf } from './support.ts';

const ORIGIN = 'http://127.0.0.1:8787';
const SCHEDULE = { type: 'schedule', expression: 'cron(0 9 ? * MON-FRI *)', timezone: 'Europe/Berlin' };

/** The console over the harness's API as `who`, counting every API call it makes. */
async function countedConsole(h: ReturnType<typeof apiHarness>, who: 'alice' | 'bob') {
  const calls: string[] = [];
  const api: ConsoleApi = async (_identity, method, path) => {
    calls.push(`${method} ${path}`);
    const reply = await h[who].call(method, path);
    return { status: reply.status, body: reply.body };
  };
  const app = createConsoleApp({
    api,
    login: async () => ({ owner: h.owners[who], principal: who }),
    sessions: sessionTable(h.clock),
    clock: h.clock,
    origin: ORIGIN,
  });
  const signIn = await app.request('/console/login', {
    method: 'POST',
    body: 'key=any',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
  });
  const cookie = `${CONSOLE_COOKIE}=${/wf_console=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1]}`;
  return {
    calls,
    async workflowsPage() {
      calls.length = 0;
      const response = await app.request('/console/workflows', { headers: { cookie } });
      expect(response.status).toBe(200);
      return response.text();
    },
  };
}

const rowOf = (html: string, name: string) =>
  textOf(
    new RegExp(`<tr><td><a href="/console/runs\\?workflow=[^"]+">${name}</a>[\\s\\S]*?</tr>`).exec(
      html,
    )?.[0] ?? '',
  );

describe('console: the workflows page makes a bounded number of API calls', () => {
  const small = apiHarness();
  const large = apiHarness();

  async function seed(h: ReturnType<typeof apiHarness>, count: number) {
    for (let i = 0; i < count; i++) {
      const created = await h.alice.post(
        '/v1/workflows',
        definition({ name: `flow-${i}-${randomUUID().slice(0, 6)}` }),
      );
      expect(created.status).toBe(201);
    }
  }

  beforeAll(async () => {
    await seed(small, 2);
    await seed(large, 12);
  }, 60_000);

  it('makes the same number of calls for 2 workflows as for 12: one', async () => {
    // Act
    const two = await countedConsole(small, 'alice');
    const twelve = await countedConsole(large, 'alice');
    const twoPage = await two.workflowsPage();
    const twelvePage = await twelve.workflowsPage();

    // Assess: every workflow drawn, and the count does not grow with them.
    expect([...twoPage.matchAll(/<tr><td><a href="\/console\/runs\?workflow=/g)]).toHaveLength(2);
    expect([...twelvePage.matchAll(/<tr><td><a href="\/console\/runs\?workflow=/g)]).toHaveLength(12);
    expect(twelve.calls).toHaveLength(two.calls.length);
    expect(twelve.calls).toEqual(['GET /v1/workflows?limit=100&include=summary']);
  });
});

describe('console: the workflows page from the summarized list', () => {
  const h = apiHarness({ owners: { alice: uniqueOwner(), bob: uniqueOwner() } });
  const names = { agent: `daily-${randomUUID().slice(0, 6)}`, graph: `refund-${randomUUID().slice(0, 6)}` };
  let runId = '';
  let bobRunId = '';

  beforeAll(async () => {
    const agent = await h.alice.post(
      '/v1/workflows',
      definition({
        name: names.agent,
        trigger: SCHEDULE,
        budget: { maxUsdPerRun: 1, maxUsdPerDay: 5, maxTurns: 10 },
      }),
    );
    const graph = await h.alice.post('/v1/workflows', { ...refundGraph(), name: names.graph });
    expect([agent.status, graph.status]).toEqual([201, 201]);
    const id = agent.body.workflow.workflowId as string;
    runId = (await h.alice.post(`/v1/workflows/${id}/runs`, {})).body.run.runId;
    // Today's spend of the agent workflow (the harness clock's UTC day), as the budget's commit writes it.
    await h.store.ctx.doc.send(
      new PutCommand({
        TableName: h.store.ctx.table,
        Item: { ...keys.daySpend(h.owners.alice, id, '2026-11-30'), spentUsd: 1.25, reservedUsd: 0.25 },
      }),
    );
    // Bob has a workflow of the same name, with a run.
    const bobs = await h.bob.post('/v1/workflows', definition({ name: names.agent }));
    bobRunId = (await h.bob.post(`/v1/workflows/${bobs.body.workflow.workflowId}/runs`, {})).body.run.runId;
  }, 60_000);

  it("shows each workflow's kind, trigger, next fire, last run and today's spend against its ceiling", async () => {
    const alice = await countedConsole(h, 'alice');
    const html = await alice.workflowsPage();

    const agentRow = rowOf(html, names.agent);
    expect(agentRow).toContain(`${names.agent} agent cron(0 9 ? * MON-FRI *) (Europe/Berlin)`);
    expect(agentRow).toMatch(/\d{4}-\d\d-\d\d 08:00:00 UTC yes v1/);
    expect(html).toContain(`href="/console/runs/${runId}"`);
    expect(agentRow).toContain('$1.250000 of $5.000000');
    expect(rowOf(html, names.graph)).toMatch(
      new RegExp(`${names.graph} graph on_demand — yes v1 none \\$0\\.000000 of no ceiling`),
    );
    expect(html).not.toContain(bobRunId);
  });

  it("lists another owner's workflows with their own summaries only", async () => {
    const bob = await countedConsole(h, 'bob');
    const html = await bob.workflowsPage();

    expect(html).toContain(`href="/console/runs/${bobRunId}"`);
    expect(html).not.toContain(runId);
    expect(html).not.toContain(names.graph);
    expect(rowOf(html, names.agent)).toContain('$0.000000 of no ceiling');
  });
});

describe('GET /v1/workflows?include=summary', () => {
  const h = apiHarness();

  it('adds the summary only when asked, and refuses an unknown include naming the field', async () => {
    const created = await h.alice.post('/v1/workflows', definition());
    const id = created.body.workflow.workflowId;

    const plain = await h.alice.get('/v1/workflows?limit=100');
    const summarized = await h.alice.get('/v1/workflows?limit=100&include=summary');
    const unknown = await h.alice.get('/v1/workflows?include=everything');

    expect(plain.body.items).toEqual([created.body.workflow]);
    expect(summarized.body.items).toEqual([
      {
        ...created.body.workflow,
        summary: {
          kind: 'agent',
          trigger: { type: 'on_demand' },
          lastRun: null,
          spend: { workflowId: id, day: '2026-11-30', totalUsd: 0, reservedUsd: 0, ceilingUsd: null },
        },
      },
    ]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.fields).toEqual([expect.objectContaining({ path: 'include' })]);
  });
});
