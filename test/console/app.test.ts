/**
 * The console app through `app.request`: sign-in exchanges a key for a HttpOnly, SameSite=Strict cookie,
 * pages need a session, every response carries the strict CSP, and POSTs from another origin are refused.
 * The API port is a recording fake: what matters here is the console's own edge.
 */
import { describe, expect, it } from 'vitest';
import { CONSOLE_COOKIE, createConsoleApp } from '../../shared/console/app.ts';
import type { ApiAnswer } from '../../shared/console/deps.ts';
import { sessionTable } from '../../shared/local/sessions.ts';

const ORIGIN = 'http://127.0.0.1:8787';
const KEY = 'wfl_test_key_0123456789abcdef';
const clock = { nowMs: () => Date.parse('2026-12-01T12:00:00Z') };

type Login = Parameters<typeof createConsoleApp>[0]['login'];
const ownerLogin: Login = async (key) =>
  key === KEY ? { owner: 'alice', principal: 'alice@laptop' } : undefined;

function consoleUnderTest(login: Login = ownerLogin) {
  const calls: { owner: string; method: string; path: string }[] = [];
  const answers: Record<string, ApiAnswer> = {
    'GET /v1/workflows?limit=100': { status: 200, body: { items: [] } },
    'GET /v1/runs?limit=100': { status: 200, body: { items: [] } },
    'POST /v1/runs/run_abcdef123/cancel': { status: 200, body: { run: {} } },
  };
  const app = createConsoleApp({
    api: async (identity, method, path) => {
      calls.push({ owner: identity.owner, method, path });
      return answers[`${method} ${path}`] ?? { status: 404, body: { error: { code: 'not_found' } } };
    },
    login,
    sessions: sessionTable(clock),
    clock,
    origin: ORIGIN,
  });
  return { app, calls };
}

const form = (body: string, headers: Record<string, string> = {}) => ({
  method: 'POST',
  body,
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
});

async function signedIn() {
  const { app, calls } = consoleUnderTest();
  const response = await app.request('/console/login', form(`key=${KEY}`, { origin: ORIGIN }));
  const cookie = /wf_console=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  return { app, calls, cookie: `${CONSOLE_COOKIE}=${cookie}` };
}

describe('console: sign-in', () => {
  it.each([
    '/console',
    '/console/runs',
    '/console/runs/run_abcdef123',
    '/console/approvals',
    '/console/workflows',
  ])('sends %s without a session to the sign-in form, calling no API', async (path) => {
    const { app, calls } = consoleUnderTest();
    const response = await app.request(path);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/console/login');
    expect(calls).toEqual([]);
  });

  it('ignores a forged or unknown session cookie', async () => {
    const { app, calls } = consoleUnderTest();
    const response = await app.request('/console/runs', {
      headers: { cookie: `${CONSOLE_COOKIE}=${'A'.repeat(43)}` },
    });
    expect(response.headers.get('location')).toBe('/console/login');
    expect(calls).toEqual([]);
  });

  it('exchanges a good key for an HttpOnly, SameSite=Strict cookie scoped to /console', async () => {
    const { app } = consoleUnderTest();
    const response = await app.request('/console/login', form(`key=${KEY}`, { origin: ORIGIN }));
    expect(response.status).toBe(303);
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^wf_console=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/console');
    expect(cookie).not.toContain(KEY);
  });

  it('refuses a wrong key with 401 and no cookie', async () => {
    const { app } = consoleUnderTest();
    const response = await app.request('/console/login', form('key=wrong', { origin: ORIGIN }));
    expect(response.status).toBe(401);
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it.each<[string, Login]>([
    // The console's own check, apart from any login's: a login that lets a client through is still refused.
    [
      "a delegated client's identity",
      async () => ({ owner: 'alice', principal: 'cli_ops', client: 'cli_ops' }),
    ],
    ['a login that fails', async () => Promise.reject(new Error('lookup failed'))],
    ['an identity without an owner', async () => ({ owner: '', principal: 'nobody' })],
  ])('refuses %s with 401 and no cookie, even for the right key', async (_name, login) => {
    const { app } = consoleUnderTest(login);
    const response = await app.request('/console/login', form(`key=${KEY}`, { origin: ORIGIN }));
    expect(response.status).toBe(401);
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it.each([
    ['another origin', { origin: 'http://evil.example' }],
    ['a cross-site fetch', { 'sec-fetch-site': 'cross-site' }],
  ])('refuses a sign-in posted from %s (login CSRF)', async (_name, headers) => {
    const { app } = consoleUnderTest();
    const response = await app.request('/console/login', form(`key=${KEY}`, headers));
    expect(response.status).toBe(403);
    expect(response.headers.get('set-cookie')).toBeNull();
  });

  it('signs out: the session no longer opens pages', async () => {
    const { app, cookie } = await signedIn();
    const out = await app.request('/console/logout', { method: 'POST', headers: { cookie, origin: ORIGIN } });
    expect(out.status).toBe(303);
    const after = await app.request('/console/runs', { headers: { cookie } });
    expect(after.headers.get('location')).toBe('/console/login');
  });
});

describe('console: pages', () => {
  it('draws a page for the session owner from the API, with the strict headers', async () => {
    const { app, calls, cookie } = await signedIn();
    const response = await app.request('/console/runs', { headers: { cookie } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toContain('No runs match.');
    expect(calls.every((call) => call.owner === 'alice')).toBe(true);
  });

  it('answers a run the API does not find with 404 "Not found"', async () => {
    const { app, cookie } = await signedIn();
    const response = await app.request('/console/runs/run_elsewhere01', { headers: { cookie } });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('Not found');
  });

  it('escapes what the API returns', async () => {
    const { app, cookie } = await signedIn();
    const response = await app.request('/console/runs/%3Cscript%3E', { headers: { cookie } });
    expect(await response.text()).not.toContain('<script>');
  });
});

describe('console: cancel', () => {
  it('cancels through the API when posted from the console itself', async () => {
    const { app, calls, cookie } = await signedIn();
    const response = await app.request('/console/runs/run_abcdef123/cancel', {
      method: 'POST',
      headers: { cookie, origin: ORIGIN, 'sec-fetch-site': 'same-origin' },
    });
    expect(response.status).toBe(303);
    expect(calls).toContainEqual({ owner: 'alice', method: 'POST', path: '/v1/runs/run_abcdef123/cancel' });
  });

  it('refuses a cancel posted from another origin, without calling the API', async () => {
    const { app, calls, cookie } = await signedIn();
    const response = await app.request('/console/runs/run_abcdef123/cancel', {
      method: 'POST',
      headers: { cookie, origin: 'http://evil.example' },
    });
    expect(response.status).toBe(403);
    expect(calls.filter((call) => call.method === 'POST')).toEqual([]);
  });
});
