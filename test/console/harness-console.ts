/** The console over an API test harness's app (in process), signed in as alice: a page's HTML per path. */
import { expect } from 'vitest';
import { CONSOLE_COOKIE, createConsoleApp } from '../../shared/console/app.ts';
import type { ConsoleApi } from '../../shared/console/deps.ts';
import { sessionTable } from '../../shared/local/sessions.ts';
import type { apiHarness } from '../api/helpers.ts';

const ORIGIN = 'http://127.0.0.1:8787';

/** Signs alice in through the sign-in form; `get(path, status)` asserts the status and answers the HTML. */
export async function aliceConsole(h: ReturnType<typeof apiHarness>) {
  const api: ConsoleApi = async (_identity, method, path) => {
    const reply = await h.alice.call(method, path);
    return { status: reply.status, body: reply.body };
  };
  const app = createConsoleApp({
    api,
    login: async (key) => (key === 'alice' ? { owner: h.owners.alice, principal: 'alice' } : undefined),
    sessions: sessionTable(h.clock),
    clock: h.clock,
    origin: ORIGIN,
  });
  const signIn = await app.request('/console/login', {
    method: 'POST',
    body: 'key=alice',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
  });
  const cookie = `${CONSOLE_COOKIE}=${/wf_console=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1]}`;
  return async (path: string, status = 200) => {
    const response = await app.request(path, { headers: { cookie } });
    expect(response.status).toBe(status);
    return response.text();
  };
}
