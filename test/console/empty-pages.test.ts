/**
 * A page of a filtered listing can be empty and still have a `nextToken` (the API stops reading at a budget,
 * shared/store/reads.ts; the runs page filters by kind within a page). The console then says "none on this
 * page; more may follow" with a Next link, never "nothing is waiting". And the grants page's link to a
 * client's jobs carries the client id URL-encoded. The real console app over a recording fake API.
 */
import { describe, expect, it } from 'vitest';
import type { ApiAnswer } from '../../shared/console/deps.ts';
import { sessionTable } from '../../shared/local/sessions.ts';
import { signedInApp } from './support.ts';

const ORIGIN = 'http://127.0.0.1:8787';
const clock = { nowMs: () => Date.parse('2026-12-02T13:00:00Z') };

const grant = (clientId: string) => ({
  clientId,
  version: 1,
  updatedAt: '2026-12-01T00:00:00Z',
  updatedBy: 'alice',
  revoked: false,
  grant: {
    actions: [],
    gates: {},
    models: ['m'],
    maxUsdPerJob: 1,
    maxTurns: 3,
    concurrency: 1,
    maxQueued: 1,
    maxAttempts: 1,
    jobTimeoutSeconds: 60,
    scopes: ['jobs:submit'],
  },
});

async function signedIn(answer: (path: string) => ApiAnswer | undefined) {
  const calls: string[] = [];
  const request = await signedInApp({
    api: async (_identity, _method, path) => {
      calls.push(path);
      return answer(path) ?? { status: 404, body: { error: { code: 'not_found', message: 'no' } } };
    },
    login: async () => ({ owner: 'alice', principal: 'alice' }),
    sessions: sessionTable(clock),
    clock,
    origin: ORIGIN,
  });
  const get = async (path: string) => {
    const page = await request(path);
    expect(page.status).toBe(200);
    return page.text();
  };
  return { get, calls };
}

const nextHref = (html: string) =>
  /<a id="next" rel="next" href="([^"]+)">Next<\/a>/.exec(html)?.[1]?.replaceAll('&amp;', '&');

describe('console: an empty page with a nextToken', () => {
  it('approvals: says more may follow, links Next, and the Next page asks the API with the token', async () => {
    const { get, calls } = await signedIn((path) =>
      path.startsWith('/v1/approvals') ? { status: 200, body: { items: [], nextToken: 'MORE' } } : undefined,
    );
    const page = await get('/console/approvals');
    expect(page).not.toContain('No approval is waiting.');
    expect(page).toContain('None on this page; more may follow');
    expect(nextHref(page)).toBe('/console/approvals?after=MORE');
    await get(nextHref(page)!);
    expect(calls.at(-1)).toBe('/v1/approvals?status=pending&limit=100&nextToken=MORE');
  });

  it('approvals: the last page, empty, says nothing is waiting and has no Next', async () => {
    const { get } = await signedIn((path) =>
      path.startsWith('/v1/approvals') ? { status: 200, body: { items: [] } } : undefined,
    );
    const page = await get('/console/approvals');
    expect(page).toContain('No approval is waiting.');
    expect(nextHref(page)).toBeUndefined();
  });

  it('runs and human tasks: "more may follow" above the Next link, not "No runs match."', async () => {
    const { get } = await signedIn((path) =>
      path.startsWith('/v1/workflows')
        ? { status: 200, body: { items: [] } }
        : path.startsWith('/v1/runs') || path.startsWith('/v1/human-tasks')
          ? { status: 200, body: { items: [], nextToken: 'MORE' } }
          : undefined,
    );
    const runs = await get('/console/runs?status=awaiting_approval');
    expect(runs).not.toContain('No runs match.');
    expect(runs).toContain('None on this page; more may follow');
    expect(nextHref(runs)).toBe('/console/runs?status=awaiting_approval&after=MORE');
    const tasks = await get('/console/human-tasks');
    expect(tasks).not.toContain('No human task is waiting.');
    expect(tasks).toContain('None on this page; more may follow');
  });
});

describe('console: no workflows yet', () => {
  it('names the command that adds one as the CLI takes it (`-f FILE`, docs/cli.md)', async () => {
    const { get } = await signedIn((path) =>
      path.startsWith('/v1/workflows') ? { status: 200, body: { items: [] } } : undefined,
    );
    const page = await get('/console/workflows');
    expect(page).toContain('No workflows yet: <code>wf workflow apply -f FILE</code> adds one.');
  });
});

describe('console: grants page links', () => {
  it("links to a client's jobs with the client id URL-encoded, and the jobs page picks that client", async () => {
    const { get, calls } = await signedIn((path) =>
      path === '/v1/grants'
        ? { status: 200, body: { grants: [grant('ci+bot'), grant('other')] } }
        : path.startsWith('/v1/grants/')
          ? { status: 200, body: { jobs: [] } }
          : undefined,
    );
    const grants = await get('/console/grants');
    const href = /href="(\/console\/jobs\?client=[^"]*)"/.exec(grants)?.[1]?.replaceAll('&amp;', '&');
    expect(href).toBe('/console/jobs?client=ci%2Bbot');
    calls.length = 0;
    await get(href!);
    expect(calls.filter((path) => path.startsWith('/v1/grants/'))).toEqual([
      expect.stringMatching(/^\/v1\/grants\/ci%2Bbot\/jobs\?/),
    ]);
  });
});
