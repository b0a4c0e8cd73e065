/**
 * `wf run list --watch --interval 0.2` as a person runs it: the real bin in a real pseudo-terminal (util-linux `script`),
 * against an API on loopback whose run list the test changes. On the terminal the list is redrawn in place
 * (cursor up over the previous drawing, clear down), only when it changed, and Ctrl-C (the terminal's own
 * SIGINT) stops it with exit 0 and no stack trace. With stdout a pipe it prints one line per change instead,
 * without any escape code. Every wait is for an event (output seen, requests served), never a duration.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { redrawFrom } from '../../shared/cli/run-list.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = `${ROOT}node_modules/.bin/node`;

const run = (runId: string, status: string) => ({
  schemaVersion: 1,
  runId,
  owner: 'local',
  workflowId: 'wf_abcdef123456',
  workflowName: 'watched',
  workflowVersion: 1,
  status,
  turn: 0,
  rev: 0,
  trigger: { type: 'on_demand', caller: 'test' },
  usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
  costUsd: 0,
  modelCalls: 0,
  messageCount: 0,
  pendingApprovalIds: [],
  createdAt: '2026-12-01T20:00:00.000Z',
  updatedAt: '2026-12-01T20:00:00.000Z',
});

/** A loopback API whose `GET /v1/runs` answers `items`; `served` counts those requests and wakes waiters. */
async function fakeApi() {
  const api = {
    items: [run('run_aaaaaaaa1', 'running')] as ReturnType<typeof run>[],
    served: 0,
    waiters: [] as (() => void)[],
    server: undefined as unknown as Server,
    url: '',
  };
  api.server = createServer((request, response) => {
    if (!request.url?.startsWith('/v1/runs')) return response.writeHead(404).end('{}');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items: api.items }));
    api.served++;
    for (const wake of api.waiters.splice(0)) wake();
  });
  api.server.listen(0, '127.0.0.1');
  await once(api.server, 'listening');
  api.url = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`;
  return api;
}
type FakeApi = Awaited<ReturnType<typeof fakeApi>>;

/** Resolves once `count` more list requests were served. */
const servedMore = (api: FakeApi, count: number) => {
  const target = api.served + count;
  return new Promise<void>((resolve) => {
    const check = () => (api.served >= target ? resolve() : api.waiters.push(check));
    check();
  });
};

/** Everything the child printed so far, and a wait for what it prints next. */
function output(child: ChildProcess) {
  let text = '';
  const waiters: (() => void)[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    text: () => text,
    until: (test: (text: string) => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => (test(text) ? resolve() : waiters.push(check));
        check();
      }),
  };
}

const WF = (api: FakeApi) => [
  `${ROOT}bin/wf.ts`,
  'run',
  'list',
  '--watch',
  // A fixed pace (docs/cli.md, "Polling"): the test waits for polls, and the backoff would stretch them to 10 s.
  '--interval',
  '0.2',
  '--url',
  api.url,
  '--api-key',
  'wfl_k',
];
const ENV = { PATH: process.env.PATH ?? '', NO_COLOR: '1', HOME: process.env.HOME ?? '/tmp' };

const children: ChildProcess[] = [];
const servers: Server[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const server of servers.splice(0)) server.close();
});

describe('wf run list --watch', () => {
  it('on a terminal redraws the list in place when it changes, and stops cleanly on Ctrl-C', async () => {
    // Prepare: the bin inside a pseudo-terminal; `script` passes what the test writes to the terminal.
    const api = await fakeApi();
    servers.push(api.server);
    // `exec`: the bin itself, not a shell waiting for it, is what the terminal's Ctrl-C reaches.
    const command = `exec ${[NODE, ...WF(api)].map((part) => `'${part}'`).join(' ')}`;
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: ENV,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(child);
    const out = output(child);
    const exited = once(child, 'exit');

    // Act 1: the first drawing, then two polls with nothing changed.
    await out.until((text) => text.includes('run_aaaaaaaa1') && text.includes('running'));
    await servedMore(api, 2);
    const unchanged = out.text();
    // Act 2: the run ends and another starts.
    api.items = [run('run_bbbbbbbb2', 'running'), run('run_aaaaaaaa1', 'done')];
    await out.until((text) => text.includes('run_bbbbbbbb2'));
    const redrawn = out.text();
    // Act 3: Ctrl-C typed on the terminal.
    child.stdin?.write('\u0003');
    const [code] = await exited;

    // Assess
    expect(unchanged).not.toContain('\u001b[');
    const drawing = redrawn.slice(unchanged.length);
    expect(drawing.startsWith(redrawFrom(1))).toBe(true);
    expect(drawing).toMatch(/run_bbbbbbbb2 +watched +v1 +running[^\n]*\r?\nrun_aaaaaaaa1 +watched +v1 +done/);
    expect(code).toBe(0);
    expect(out.text()).not.toMatch(/Error|at .*\.ts:\d+/);
  }, 60_000);

  it('with stdout not a terminal prints one line per change, no escape codes, and stops on SIGINT', async () => {
    const api = await fakeApi();
    servers.push(api.server);
    const child = spawn(NODE, WF(api), { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const out = output(child);
    const exited = once(child, 'exit');

    await out.until((text) => text.includes('run_aaaaaaaa1'));
    await servedMore(api, 2);
    api.items = [run('run_bbbbbbbb2', 'running'), run('run_aaaaaaaa1', 'done')];
    await out.until((text) => text.includes('run_bbbbbbbb2'));
    await servedMore(api, 2);
    child.kill('SIGINT');
    const [code] = await exited;

    const lines = out.text().trimEnd().split('\n');
    expect(lines.map((text) => text.split(/ +/).slice(0, 4).join(' '))).toEqual([
      'run_aaaaaaaa1 watched v1 running',
      'run_aaaaaaaa1 watched v1 done',
      'run_bbbbbbbb2 watched v1 running',
    ]);
    expect(out.text()).not.toContain('\u001b[');
    expect(code).toBe(0);
  }, 60_000);
});
