/**
 * The CLI's edges against a recording fake API on loopback: API Gateway's own refusals keep their reason,
 * filtered listings follow pages that are empty with a `nextToken`, `wf console` takes WF_URL and
 * WF_AUTH=aws like every command, bad `--port`/`--url`/timeouts are usage errors naming the option, the
 * "wf local up" hint is only for this machine's URLs, and a request that never answers times out.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOLLOW_PAGES } from '../../shared/cli/follow-pages.ts';
import { helpFor } from '../../shared/cli/help.ts';
import { main, USAGE } from '../../shared/cli/main.ts';
import { wf } from './support.ts';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;
let handler: Handler = (_request, response) => response.writeHead(500).end();
const seen: string[] = [];
const fake = createServer((request, response) => {
  seen.push(request.url ?? '');
  handler(request, response);
});
let url = '';
const KEY = ['--api-key', `wfl_${'k'.repeat(24)}`];
const json = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

beforeAll(async () => {
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
});
afterAll(async () => {
  fake.closeAllConnections();
  await new Promise((resolve) => fake.close(resolve));
});

describe("API Gateway's own refusals", () => {
  it('keep their message and take the code from x-amzn-errortype', async () => {
    handler = (_request, response) =>
      json(
        response,
        403,
        { message: 'The security token included in the request is expired' },
        { 'x-amzn-errortype': 'ExpiredTokenException:http://internal.amazon.com/coral/' },
      );
    const result = await wf(['workflow', 'list', '--url', url, ...KEY]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'wf: The security token included in the request is expired (ExpiredTokenException, HTTP 403)',
    );
  });

  it('without x-amzn-errortype, the message and http_<status>', async () => {
    handler = (_request, response) => json(response, 401, { message: 'Unauthorized' });
    const result = await wf(['workflow', 'list', '--url', url, ...KEY]);
    expect(result.stderr).toBe('wf: Unauthorized (http_401, HTTP 401)');
  });
});

const approval = {
  approvalId: 'apr_1',
  status: 'pending',
  tool: 'notes_append',
  runId: 'run_1',
  expiresAt: '2026-12-03T00:00:00Z',
};

describe('filtered listings whose first pages are empty with a nextToken', () => {
  it('wf approvals list follows the pages to the approval', async () => {
    handler = (request, response) => {
      const token = new URL(request.url ?? '', url).searchParams.get('nextToken');
      if (token === null) return json(response, 200, { items: [], nextToken: 'P2' });
      if (token === 'P2') return json(response, 200, { items: [], nextToken: 'P3' });
      return json(response, 200, { items: [approval] });
    };
    seen.length = 0;
    const result = await wf(['approvals', 'list', '--status', 'pending', '--url', url, ...KEY]);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('no approvals');
    expect(result.stdout).toContain('apr_1  pending');
    expect(seen).toEqual([
      '/v1/approvals?status=pending',
      '/v1/approvals?status=pending&nextToken=P2',
      '/v1/approvals?status=pending&nextToken=P3',
    ]);
  });

  it(`stops after ${FOLLOW_PAGES} pages and says more may follow, not "none"`, async () => {
    handler = (_request, response) => json(response, 200, { items: [], nextToken: 'MORE' });
    seen.length = 0;
    const approvals = await wf(['approvals', 'list', '--url', url, ...KEY]);
    expect(seen).toHaveLength(FOLLOW_PAGES);
    expect(approvals.stdout).toBe(
      `no approvals on the first ${FOLLOW_PAGES} pages; more may follow (--json shows the nextToken)`,
    );
    const runs = await wf(['run', 'list', '--status', 'pending', '--url', url, ...KEY]);
    expect(runs.stdout).toBe(
      `no runs on the first ${FOLLOW_PAGES} pages; more may follow (--json shows the nextToken)`,
    );
  });

  it('wf run list --status follows the pages to the run', async () => {
    const run = {
      runId: 'run_old',
      workflowName: 'flow',
      workflowVersion: 1,
      status: 'pending',
      trigger: { type: 'on_demand' },
      createdAt: '2026-12-01T00:00:00Z',
      costUsd: 0,
    };
    handler = (request, response) =>
      new URL(request.url ?? '', url).searchParams.get('nextToken') === null
        ? json(response, 200, { items: [], nextToken: 'P2' })
        : json(response, 200, { items: [run] });
    const result = await wf(['run', 'list', '--status', 'pending', '--url', url, ...KEY]);
    expect(result.stdout).toContain('run_old');
    expect(result.stdout).not.toContain('no runs');
  });
});

describe('wf console and the environment defaults', () => {
  it('takes WF_URL and WF_AUTH=aws as --url and --aws', async () => {
    const printed: string[] = [];
    const stop = new AbortController();
    const env = { WF_URL: url, WF_AUTH: 'aws', AWS_REGION: 'eu-central-1' };
    const done = main(['console', '--port', '0'], {
      stdout: (text) => {
        printed.push(text);
        stop.abort();
      },
      stderr: (text) => printed.push(text),
      env,
      signal: stop.signal,
    });
    expect(await done).toBe(0);
    expect(printed[0]).toMatch(new RegExp(`^wf console for ${url} on http://127\\.0\\.0\\.1:\\d+/console`));
  });
});

describe('usage errors name the option', () => {
  it.each([
    [
      ['console', '--aws', '--url', 'http://127.0.0.1:1', '--port', '99999'],
      "--port '99999' must be a port number",
    ],
    [['local', 'up', '--port', '70000'], "--port '70000' must be a port number"],
    [['workflow', 'list', '--url', 'notaurl', ...KEY], "--url 'notaurl' is not an http(s) URL"],
    [
      ['workflow', 'list', '--url', url, '--request-timeout', 'soon', ...KEY],
      "--request-timeout 'soon' must be",
    ],
  ])('wf %s', async (argv, message) => {
    const result = await wf(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('names WF_URL and WF_REQUEST_TIMEOUT when the bad value came from there', async () => {
    const badUrl = await wf(['workflow', 'list', ...KEY], { WF_URL: 'notaurl' });
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain("WF_URL 'notaurl' is not an http(s) URL");
    const badTimeout = await wf(['workflow', 'list', '--url', url, ...KEY], { WF_REQUEST_TIMEOUT: '0' });
    expect(badTimeout.code).toBe(2);
    expect(badTimeout.stderr).toContain("WF_REQUEST_TIMEOUT '0' must be");
  });

  it('usage lines list --draft, --region and --force', () => {
    expect(helpFor('workflow apply')).toContain('usage: wf workflow apply -f FILE [--draft]');
    expect(USAGE).toContain('wf console --aws --url API_URL [--region R] [--port 8788]');
    expect(USAGE).toContain('wf fixture init WORKFLOW_FILE [--out FILE] [--force]');
    expect(helpFor('console')).toContain('apiAuth=iam');
  });
});

describe('reaching the API', () => {
  it('hints "wf local up" only for a URL on this machine', async () => {
    const local = await wf(['workflow', 'list', '--url', 'http://127.0.0.1:1', ...KEY]);
    expect(local.stderr).toContain('is it running? (wf local up)');
    // 0.0.0.0 is refused on this machine too, but it is not a loopback name: as a deployed URL would be.
    const remote = await wf(['workflow', 'list', '--url', 'http://0.0.0.0:1', ...KEY]);
    expect(remote.stderr).toContain('cannot reach the runtime at http://0.0.0.0:1');
    expect(remote.stderr).not.toContain('wf local up');
  });

  it('gives up on a request that never answers, naming the limit and how to change it', async () => {
    handler = () => {}; // never answers
    const result = await wf(['workflow', 'list', '--url', url, '--request-timeout', '0.2', ...KEY]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `wf: the runtime at ${url} did not answer within 0.2 s (--request-timeout S or WF_REQUEST_TIMEOUT changes the limit)`,
    );
  });
});
