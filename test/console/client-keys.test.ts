/**
 * The console is the owner's: a delegated-jobs client's key (docs/jobs.md) never signs in, neither through the
 * console app's own check nor through the local stack's key sign-in. Before this check a client key signed in,
 * and the session (which keeps owner and principal only) then acted with the owner's full rights: it listed
 * the owner's runs and could cancel them.
 */
import { describe, expect, it } from 'vitest';
import { apiKeyAuthenticator } from '../../shared/api/auth.ts';
import type { Identity } from '../../shared/api/deps.ts';
import { createConsoleApp } from '../../shared/console/app.ts';
import { inProcessApi } from '../../shared/console/in-process.ts';
import { localConsole } from '../../shared/console/local.ts';
import { sessionTable } from '../../shared/local/sessions.ts';

const ORIGIN = 'http://127.0.0.1:8787';
const OWNER_KEY = 'wfl_owner_key_0123456789abcdef';
const CLIENT_KEY = 'wfl_client_key_0123456789abcdef';
const clock = { nowMs: () => Date.parse('2026-12-01T12:00:00Z') };

const signIn = (
  app: { request: (path: string, init: RequestInit) => Response | Promise<Response> },
  key: string,
) =>
  app.request('/console/login', {
    method: 'POST',
    body: `key=${key}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
  });

function consoleWithLogin(login: (key: string) => Promise<Identity | undefined>) {
  const calls: string[] = [];
  const app = createConsoleApp({
    api: async (_identity, method, path) => {
      calls.push(`${method} ${path}`);
      return { status: 200, body: { items: [] } };
    },
    login,
    sessions: sessionTable(clock),
    clock,
    origin: ORIGIN,
  });
  return { app, calls };
}

describe('console sign-in: owners only', () => {
  it.each<[string, (key: string) => Promise<Identity | undefined>]>([
    ['a client identity', async () => ({ owner: 'alice', principal: 'client:bot', client: 'bot' })],
    [
      'a JWT client identity (no owner yet)',
      async () => ({ owner: '', principal: 'client:bot', client: 'bot' }),
    ],
    ['an identity with an empty owner', async () => ({ owner: '', principal: 'x' })],
    [
      'a login that throws',
      async () => {
        throw new Error('lookup failed');
      },
    ],
  ])('refuses %s with 401 and no session cookie', async (_name, login) => {
    const { app, calls } = consoleWithLogin(login);
    const response = await signIn(app, CLIENT_KEY);
    expect(response.status).toBe(401);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(calls).toEqual([]);
  });

  it("still signs an owner's identity in", async () => {
    const { app } = consoleWithLogin(async () => ({ owner: 'alice', principal: 'alice' }));
    const response = await signIn(app, OWNER_KEY);
    expect(response.status).toBe(303);
    expect(response.headers.get('set-cookie')).toMatch(/^wf_console=/);
  });
});

describe('local console sign-in with the stack keys file', () => {
  const authenticator = apiKeyAuthenticator(
    JSON.stringify({
      keys: {
        [OWNER_KEY]: { owner: 'alice' },
        [CLIENT_KEY]: { owner: 'alice', client: 'report-bot' },
      },
    }),
  );
  const inProcess = inProcessApi(authenticator);
  const seen: string[] = [];
  const app = localConsole({
    authenticator,
    inProcess,
    fetchApi: (request) => {
      seen.push(new URL(request.url).pathname);
      return Response.json({ items: [] });
    },
    clock,
    origin: ORIGIN,
  });

  it("refuses a delegated-jobs client's key, though the keys file knows it", async () => {
    const response = await signIn(app, CLIENT_KEY);
    expect(response.status).toBe(401);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(seen).toEqual([]);
  });

  it("signs the owner's key in", async () => {
    const response = await signIn(app, OWNER_KEY);
    expect(response.status).toBe(303);
  });
});
