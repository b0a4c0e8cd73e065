/**
 * A schedule's or an event's run that ended without ever starting and was replaced by a new run when its trigger
 * came again carries `replacedBy` (shared/store/runs.ts), and the new run's trigger `replacesRunId`: `wf run show`
 * prints each and the console's run page links each way. The API's answers are deterministic stand-ins here; what the CLI prints and the page shows is
 * judged.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../shared/cli/client.ts';
import { type Output, showRun } from '../../shared/cli/commands.ts';
import { CONSOLE_COOKIE, createConsoleApp } from '../../shared/console/app.ts';
import type { ApiAnswer } from '../../shared/console/deps.ts';
import { sessionTable } from '../../shared/local/sessions.ts';
import type { Run } from '../../shared/schemas/run.ts';

const ENDED = 'run_ended0123456789';
const REPLACEMENT = 'run_replacement0123456';

const endedRun = (replacedBy?: string): Run => ({
  schemaVersion: 1,
  runId: ENDED,
  owner: 'alice',
  workflowId: 'wf_0123456789abcdef',
  workflowName: 'orders',
  workflowVersion: 1,
  status: 'failed',
  stopReason: 'error',
  turn: 0,
  rev: 2,
  trigger: { type: 'event', eventId: 'evt-1', source: 'app.orders', detailType: 'OrderPlaced' },
  usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
  costUsd: 0,
  modelCalls: 0,
  messageCount: 1,
  pendingApprovalIds: [],
  error: { name: 'ExecutionNotStarted', message: "the run's execution could not be started" },
  ...(replacedBy ? { replacedBy } : {}),
  audit: { seq: 3, head: 'h3' },
  createdAt: '2026-12-01T07:00:00.000Z',
  updatedAt: '2026-12-01T07:11:00.000Z',
  endedAt: '2026-12-01T07:11:00.000Z',
  deadlineAt: '2026-12-01T08:00:00.000Z',
});

/** The run started in the ended run's place: pending, its trigger naming the ended run. */
const replacementRun = (): Run => {
  const { error: _error, stopReason: _stop, endedAt: _ended, ...ended } = endedRun();
  return {
    ...ended,
    runId: REPLACEMENT,
    status: 'pending',
    rev: 0,
    trigger: {
      type: 'event',
      eventId: 'evt-1',
      source: 'app.orders',
      detailType: 'OrderPlaced',
      replacesRunId: ENDED,
    },
  };
};

/** The API's answers for one run: the run, an empty audit page, transcript and receipts. */
const answersFor = (run: Run): Record<string, unknown> => ({
  [`/v1/runs/${run.runId}`]: { run },
  [`/v1/runs/${run.runId}/audit`]: {
    runId: run.runId,
    entries: [],
    from: { seq: 0, prevHash: '' },
    verification: { ok: true, count: 0, head: '' },
    anchor: null,
    anchored: false,
  },
  [`/v1/runs/${run.runId}/transcript`]: { messages: [] },
  [`/v1/runs/${run.runId}/receipts?limit=100`]: { items: [] },
});

async function show(run: Run) {
  const answers = answersFor(run);
  const client = {
    get: async (path: string) => {
      if (!(path in answers)) throw new Error(`unexpected GET ${path}`);
      return answers[path];
    },
  } as unknown as ApiClient;
  const lines: string[] = [];
  const out: Output = { json: false, line: (text) => lines.push(text), data: () => {} };
  return { code: await showRun(client, run.runId, out), lines };
}

describe('wf run show', () => {
  it('prints the run that replaced a run ended without starting', async () => {
    const { code, lines } = await show(endedRun(REPLACEMENT));
    expect(code).toBe(0);
    expect(lines).toContain(`  replaced by ${REPLACEMENT}`);
  });

  it('prints no such line for a run nothing replaced', async () => {
    const { lines } = await show(endedRun());
    expect(lines.filter((line) => line.includes('replace'))).toEqual([]);
  });

  it('prints the run a replacement was started in place of', async () => {
    const { code, lines } = await show(replacementRun());
    expect(code).toBe(0);
    expect(lines).toContain(`  replaces ${ENDED}`);
    expect(lines.filter((line) => line.includes('replaced by'))).toEqual([]);
  });
});

describe("the console's run page", () => {
  const ORIGIN = 'http://127.0.0.1:8787';
  const KEY = 'wfl_test_key_0123456789abcdef';
  const clock = { nowMs: () => Date.parse('2026-12-01T12:00:00Z') };

  async function page(run: Run) {
    const answers = answersFor(run);
    const app = createConsoleApp({
      api: async (_identity, method, path): Promise<ApiAnswer> =>
        method === 'GET' && path in answers
          ? { status: 200, body: answers[path] }
          : { status: 404, body: { error: { code: 'not_found' } } },
      login: async (key) => (key === KEY ? { owner: 'alice', principal: 'alice@laptop' } : undefined),
      sessions: sessionTable(clock),
      clock,
      origin: ORIGIN,
    });
    const login = await app.request('/console/login', {
      method: 'POST',
      body: `key=${KEY}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
    });
    const cookie = /wf_console=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
    const response = await app.request(`/console/runs/${run.runId}`, {
      headers: { cookie: `${CONSOLE_COOKIE}=${cookie}` },
    });
    expect(response.status).toBe(200);
    return response.text();
  }

  it('links a run ended without starting to the run that replaced it', async () => {
    const html = await page(endedRun(REPLACEMENT));
    expect(html).toContain(`<a id="replaced-by" href="/console/runs/${REPLACEMENT}">${REPLACEMENT}</a>`);
  });

  it('shows no such link for a run nothing replaced', async () => {
    const html = await page(endedRun());
    expect(html).not.toContain('replaced-by');
    expect(html).not.toContain('id="replaces"');
  });

  it('links a replacement back to the run it was started in place of', async () => {
    const html = await page(replacementRun());
    expect(html).toContain(`<a id="replaces" href="/console/runs/${ENDED}">${ENDED}</a>`);
    expect(html).not.toContain('replaced-by');
  });
});
