/** The console over an API test harness's app (in process), signed in as alice: a page's HTML per path. */
import { expect } from 'vitest';
import type { ConsoleApi } from '../../shared/console/deps.ts';
import { sessionTable } from '../../shared/local/sessions.ts';
import type { apiHarness } from '../api/helpers.ts';
import { signedInApp } from './support.ts';

const ORIGIN = 'http://127.0.0.1:8787';

/** Signs alice in through the sign-in form; `get(path, status)` asserts the status and answers the HTML. */
export async function aliceConsole(h: ReturnType<typeof apiHarness>) {
  const api: ConsoleApi = async (_identity, method, path) => {
    const reply = await h.alice.call(method, path);
    return { status: reply.status, body: reply.body };
  };
  const request = await signedInApp(
    {
      api,
      login: async (key) => (key === 'alice' ? { owner: h.owners.alice, principal: 'alice' } : undefined),
      sessions: sessionTable(h.clock),
      clock: h.clock,
      origin: ORIGIN,
    },
    'alice',
  );
  return async (path: string, status = 200) => {
    const response = await request(path);
    expect(response.status).toBe(status);
    return response.text();
  };
}
