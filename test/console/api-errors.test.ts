/**
 * The console shows the API's own answer when the API refuses a request: a 400, 403, 404 or 409 keeps its
 * status, and the page shows the API's code, message and fields, escaped. Only a failure upstream (the API
 * unreachable, or its 5xx) is a 502; a fault in the console itself is a 500 with no detail.
 * First over the real API on DynamoDB Local (forged page tokens on every paged list), then over a fake API
 * port answering each status (every page that calls the API, and the cancel form).
 */
import { describe, expect, it } from 'vitest';
import type { ApiAnswer, ConsoleApi } from '../../shared/console/deps.ts';
import { sessionTable } from '../../shared/local/sessions.ts';
import { apiHarness } from '../api/helpers.ts';
import { signedInApp, textOf } from './support.ts';

const ORIGIN = 'http://127.0.0.1:8787';
const clock = { nowMs: () => Date.parse('2026-12-01T12:00:00Z') };

/** A console signed in as `owner` over `api`; `request` answers a page's status and HTML. */
async function consoleOver(api: ConsoleApi, owner = 'alice') {
  const request = await signedInApp({
    api,
    login: async (key) => (key === 'k' ? { owner, principal: 'alice@laptop' } : undefined),
    sessions: sessionTable(clock),
    clock,
    origin: ORIGIN,
  });
  return async (method: 'GET' | 'POST', path: string) => {
    const response = await request(path, {
      method,
      headers: { origin: ORIGIN, 'sec-fetch-site': 'same-origin' },
    });
    return { status: response.status, html: await response.text() };
  };
}

const forged = Buffer.from(
  JSON.stringify({ pk: 'RUN#run_x', sk: 'RUN', gsi1pk: 'OWNER#someone-else', gsi1sk: 'RUN#' }),
).toString('base64url');

describe('console over the real API: a forged page token', () => {
  const h = apiHarness();
  const api: ConsoleApi = async (_identity, method, path) => {
    const reply = await h.alice.call(method, path);
    return { status: reply.status, body: reply.body };
  };

  it.each(['/console/runs', '/console/workflows', '/console/human-tasks'])(
    '%s answers the API 400 naming nextToken, not a 502',
    async (path) => {
      // Prepare
      const request = await consoleOver(api, h.owners.alice);

      // Act
      const page = await request('GET', `${path}?after=${forged}`);

      // Assess
      expect(page.status).toBe(400);
      const text = textOf(page.html);
      expect(text).toContain('The API refused this request');
      expect(text).toContain('The API answered HTTP 400 (validation_failed): the request is invalid');
      expect(text).toMatch(/nextToken: \S/);
      expect(text).not.toContain('did not answer');
    },
  );
});

/** A fake API: every call answers `answer` (the sign-in needs no call). */
const answering =
  (answer: ApiAnswer | (() => Promise<ApiAnswer>)): ConsoleApi =>
  async () =>
    typeof answer === 'function' ? answer() : answer;

const refusal = (status: number, code: string, message: string, fields?: unknown) => ({
  status,
  body: { error: { code, message, ...(fields ? { fields } : {}) } },
});

const PAGES: ['GET' | 'POST', string][] = [
  ['GET', '/console/workflows'],
  ['GET', '/console/runs'],
  ['GET', '/console/runs/run_abcdef123'],
  ['GET', '/console/approvals'],
  ['GET', '/console/human-tasks'],
  ['GET', '/console/jobs'],
  ['GET', '/console/grants'],
  ['POST', '/console/runs/run_abcdef123/cancel'],
];

describe('console over a fake API: each refusal keeps its status', () => {
  it.each(PAGES)('%s %s: a 400, 403 and 409 show the API status, code and message', async (method, path) => {
    for (const [status, code] of [
      [400, 'validation_failed'],
      [403, 'forbidden'],
      [409, 'concurrent_update'],
    ] as const) {
      const request = await consoleOver(answering(refusal(status, code, `refused with ${status}`)));
      const page = await request(method, path);
      expect(page.status).toBe(status);
      expect(textOf(page.html)).toContain(
        `The API answered HTTP ${status} (${code}): refused with ${status}`,
      );
    }
  });

  it.each(PAGES)('%s %s: a 404 is "Not found" with the API message', async (method, path) => {
    const request = await consoleOver(answering(refusal(404, 'not_found', 'run not found')));
    const page = await request(method, path);
    expect(page.status).toBe(404);
    expect(textOf(page.html)).toContain('Not found');
    expect(textOf(page.html)).toContain('not_found): run not found');
  });

  it.each(PAGES)('%s %s: a 5xx and an unreachable API are a 502', async (method, path) => {
    const failing = await consoleOver(answering(refusal(503, 'throttled', 'the service is busy')));
    const unreachable = await consoleOver(
      answering(() => Promise.reject(new Error('cannot reach the runtime at http://127.0.0.1:9'))),
    );
    const failed = await failing(method, path);
    const gone = await unreachable(method, path);
    expect(failed.status).toBe(502);
    expect(textOf(failed.html)).toContain('HTTP 503 (throttled): the service is busy');
    expect(gone.status).toBe(502);
    expect(textOf(gone.html)).toContain('cannot reach the runtime at http://127.0.0.1:9');
  });

  it("escapes the API's message, code and fields", async () => {
    const hostile = '<script>alert(1)</script>';
    const request = await consoleOver(
      answering(refusal(400, `bad<b>`, hostile, [{ path: '<i>nextToken</i>', message: hostile }])),
    );
    const page = await request('GET', '/console/runs');
    expect(page.status).toBe(400);
    expect(page.html).not.toContain('<script>');
    expect(page.html).not.toContain('<b>');
    expect(page.html).not.toContain('<i>');
    expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(textOf(page.html)).toContain('<i>nextToken</i>: <script>alert(1)</script>');
  });

  it('a fault of the console itself is a 500 that shows no detail', async () => {
    // An answer whose body is not the shape the page reads: drawing it throws inside the console.
    const request = await consoleOver(answering({ status: 200, body: { items: 'secret-detail' } }));
    const page = await request('GET', '/console/approvals');
    expect(page.status).toBe(500);
    expect(page.html).not.toContain('secret-detail');
    expect(textOf(page.html)).toContain('The console failed to draw this page');
  });
});
