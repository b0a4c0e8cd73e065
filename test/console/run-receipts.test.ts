/**
 * The run page's receipts: one API page of them (100), and when the API has more (`nextToken`), the page says
 * so and names the command that lists them all, rather than showing a part as if it were the whole
 * (docs/console.md). The real console app over a fake API answering one run.
 */
import { describe, expect, it } from 'vitest';
import type { ApiAnswer } from '../../shared/console/deps.ts';
import { sessionTable } from '../../shared/local/sessions.ts';
import { signedInApp, textOf } from './support.ts';

const ORIGIN = 'http://127.0.0.1:8787';
const RUN_ID = 'run_0123456789abcdef0123456789abcdef';
const clock = { nowMs: () => Date.parse('2026-12-04T12:00:00Z') };

const run = {
  runId: RUN_ID,
  workflowId: 'wf_receipts01',
  workflowName: 'many-calls',
  workflowVersion: 1,
  status: 'done',
  stopReason: 'end_turn',
  trigger: { type: 'on_demand', caller: 'alice' },
  createdAt: '2026-12-04T11:00:00Z',
  costUsd: 0.5,
  modelCalls: 2,
  usage: { inputTokens: 1, outputTokens: 1, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
};

const receipt = (n: number) => ({
  toolUseId: `toolu_${n}`,
  turn: 0,
  action: 'fetch_url',
  argsHash: 'a'.repeat(64),
  idempotent: true,
  idempotencyKey: `key-${n}`,
  status: 'completed',
  attempts: 1,
  createdAt: '2026-12-04T11:00:01Z',
  settledAt: '2026-12-04T11:00:02Z',
  outcomeDigest: 'b'.repeat(64),
  onDuplicate: 'reuses_outcome',
});

async function runPage(receipts: { items: unknown[]; nextToken?: string }) {
  const answers: Record<string, ApiAnswer> = {
    [`/v1/runs/${RUN_ID}`]: { status: 200, body: { run } },
    [`/v1/runs/${RUN_ID}/audit`]: {
      status: 200,
      body: { entries: [], from: { seq: 0 }, verification: { ok: true, count: 0 }, anchored: false },
    },
    [`/v1/runs/${RUN_ID}/transcript`]: { status: 200, body: { runId: RUN_ID, messages: [] } },
    [`/v1/runs/${RUN_ID}/receipts?limit=100`]: { status: 200, body: { runId: RUN_ID, ...receipts } },
  };
  const request = await signedInApp({
    api: async (_identity, _method, path) =>
      answers[path] ?? { status: 404, body: { error: { code: 'not_found', message: 'no' } } },
    login: async () => ({ owner: 'alice', principal: 'alice' }),
    sessions: sessionTable(clock),
    clock,
    origin: ORIGIN,
  });
  const page = await request(`/console/runs/${RUN_ID}`);
  expect(page.status).toBe(200);
  return page.text();
}

describe('console: a run page with more receipts than one API page', () => {
  it('says it shows the first of them and names the command that lists them all', async () => {
    const page = await runPage({
      items: Array.from({ length: 100 }, (_, n) => receipt(n)),
      nextToken: 'MORE',
    });

    expect(textOf(page)).toContain(`The first 100 side effects; wf run receipts ${RUN_ID} lists them all.`);
  });

  it('says nothing more when the API has no further page', async () => {
    const page = await runPage({ items: [receipt(1), receipt(2)] });

    expect(page).toContain('key-2');
    expect(page).not.toContain('receipts-more');
  });
});
