/**
 * The local stack as a web page on another site would see it: the inbox is owner-fenced (a key or a session
 * of that owner), foreign `Host` names are refused (DNS rebinding), and a cross-site decision changes nothing.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
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
  openPage,
  removeDir,
  startE2eStack,
  startRun,
  tempDataDir,
  tokenOf,
} from '../e2e/support.ts';

const KEY_A = `wfl_${'a'.repeat(32)}`;
const KEY_B = `wfl_${'b'.repeat(32)}`;

let e2e: E2eStack;
let dataDir: string;
let link: string;
let approvalId: string;

/** A raw HTTP request with a Host header of our choosing (fetch would not send a foreign one). */
function rawRequest(url: string, host: string, method = 'GET'): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method,
        headers: { host },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  dataDir = await tempDataDir();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(
    join(dataDir, 'api-keys.json'),
    JSON.stringify({ keys: { [KEY_A]: { owner: 'team-a' }, [KEY_B]: { owner: 'team-b' } } }),
  );
  e2e = await startE2eStack(await createOwnTable(), {
    dataDir,
    fixtures: [{ name: 'inbox-a', turns: [appendTurn('a line'), { text: 'done' }] }],
  });
  const clientA = new ApiClient(e2e.stack.url, { kind: 'api-key', apiKey: KEY_A });
  const workflowId = await applyWorkflowText(
    { ...e2e, client: clientA },
    'inbox-a',
    gatedNotesWorkflow('inbox-a'),
  );
  const runId = await startRun({ ...e2e, client: clientA }, workflowId);
  const waiting = await awaitingApproval(e2e, runId);
  link = waiting.link;
  approvalId = waiting.approval.approvalId;
}, 60_000);

afterAll(async () => {
  await e2e?.stack.stop();
  await removeDir(dataDir);
});

describe('Local stack: /local/inbox', () => {
  it('shows a sign-in form and no links to a caller without a key', async () => {
    // Act
    const response = await fetch(`${e2e.stack.url}/local/inbox`);
    const html = await response.text();

    // Assess
    expect(response.status).toBe(200);
    expect(html).toContain('action="/local/session"');
    expect(html).not.toContain(tokenOf(link));
    expect(html).not.toContain(approvalId);
  });

  it("shows owner A's link to A's key and not to B's", async () => {
    // Act
    const asA = await (
      await fetch(`${e2e.stack.url}/local/inbox`, { headers: { authorization: `Bearer ${KEY_A}` } })
    ).text();
    const asB = await (
      await fetch(`${e2e.stack.url}/local/inbox`, { headers: { authorization: `Bearer ${KEY_B}` } })
    ).text();

    // Assess
    expect(asA).toContain(approvalId);
    expect(asA).toContain('team-a');
    expect(asB).not.toContain(approvalId);
    expect(asB).not.toContain(tokenOf(link));
    expect(asB).toContain('No approval requests yet.');
  });

  it('exchanges a key posted from its own origin for an HttpOnly, SameSite=Strict session of that owner only', async () => {
    // Act
    const signIn = await fetch(`${e2e.stack.url}/local/session`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: e2e.stack.url },
      body: new URLSearchParams({ key: KEY_B }).toString(),
    });
    const cookie = signIn.headers.get('set-cookie') ?? '';
    const page = await (
      await fetch(`${e2e.stack.url}/local/inbox`, { headers: { cookie: cookie.split(';')[0]! } })
    ).text();

    // Assess
    expect(signIn.status).toBe(303);
    expect(cookie).toMatch(/^wf_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).not.toContain(KEY_B);
    expect(page).toContain('team-b');
    expect(page).not.toContain(approvalId);
  });

  it.each([
    ['a wrong key', { origin: 'SELF' }, 'wfl_not-a-key-of-anyone-0000', 401],
    ['a key posted from another site', { origin: 'https://evil.example' }, KEY_A, 403],
    ['a key posted cross-site by fetch metadata', { 'sec-fetch-site': 'cross-site' }, KEY_A, 403],
  ])('refuses %s: no session cookie', async (_what, headers, key, status) => {
    // Act
    const origin = (headers as { origin?: string }).origin === 'SELF' ? { origin: e2e.stack.url } : headers;
    const response = await fetch(`${e2e.stack.url}/local/session`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...origin },
      body: new URLSearchParams({ key }).toString(),
    });

    // Assess
    expect(response.status).toBe(status);
    expect(response.headers.get('set-cookie')).toBeNull();
  });
});

describe('Local stack: DNS rebinding and cross-site decisions', () => {
  it.each([
    ['/local/inbox', 'GET'],
    ['/v1/workflows', 'GET'],
    [`/approvals/${'apr_x'}`, 'POST'],
  ])('refuses %s %s under a foreign Host name with 421', async (path, method) => {
    // Act
    const status = await rawRequest(`${e2e.stack.url}${path}`, 'rebind.evil.example:80', method);
    const ok = await rawRequest(`${e2e.stack.url}/local/inbox`, new URL(e2e.stack.url).host);

    // Assess
    expect(status).toBe(421);
    expect(ok).toBe(200);
  });

  it('refuses a decision posted with a foreign Origin: the approval stays pending', async () => {
    // Prepare
    const form = await openPage(link);

    // Act
    const response = await fetch(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ t: form.t, nonce: form.nonce, decision: 'approve' }).toString(),
    });

    // Assess
    expect(response.status).toBe(403);
    expect((await e2e.stack.store.getApproval(approvalId))?.status).toBe('pending');
  });
});
