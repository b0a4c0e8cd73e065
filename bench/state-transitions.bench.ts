/**
 * npm run bench:transitions — Step Functions state transitions (what AWS Standard bills) per plain turn and per
 * gated turn, measured on the local stack: the synthesized state machine, the real handlers, the scripted model
 * through the SDK, approvals decided through the approval page. Prints tables; asserts nothing.
 *
 * Per-turn figures come from whole runs: a run of n plain turns costs `fixed + n × plain`; a run whose first
 * turn is gated costs `fixed + gated + plain` (the final answer is a plain turn).
 */

import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../shared/cli/client.ts';
import type { Clock } from '../shared/core/ports.ts';
import { decideThroughPage } from '../shared/demo/approve.ts';
import { startLocalStack } from '../shared/local/stack.ts';
import type { ScriptedFixture } from '../shared/model/index.ts';
import type { Run } from '../shared/schemas/run.ts';
import { printTable } from './support.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const LONG = 10;
/** AWS Step Functions Standard: $0.025 per 1,000 state transitions (us-east-1). */
const USD_PER_TRANSITION = 0.025 / 1000;

/** Real time plus an offset the bench moves forward (for the expiry case); the SFN timers stay real. */
let offsetMs = 0;
const clock: Clock = { nowMs: () => Date.now() + offsetMs };

/** A page that takes 58 s of the runtime's time: the gated turn parks with 2 s of its 60 s window left. */
const slow = createServer((_request, response) => {
  offsetMs += 58_000;
  response.writeHead(200, { 'content-type': 'text/plain' }).end('report ready');
});
await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
const slowPort = (slow.address() as { port: number }).port;

const append = (line: string) => ({
  type: 'tool_use' as const,
  name: 'notes_append',
  input: { name: 'log', line },
});
const plainFixture = (name: string, turns: number): ScriptedFixture => ({
  name,
  turns: [
    ...Array.from({ length: turns - 1 }, (_, i) => ({ response: { content: [append(`turn ${i}`)] } })),
    { text: 'done' },
  ],
});
const fixtures: ScriptedFixture[] = [
  plainFixture('plain-1', 1),
  plainFixture('plain-2', 2),
  plainFixture(`plain-${LONG}`, LONG),
  { name: 'gated', turns: [{ response: { content: [append('gated')] } }, { text: 'done' }] },
  {
    name: 'gated-slow',
    turns: [
      {
        response: {
          content: [
            append('gated'),
            { type: 'tool_use', name: 'fetch_url', input: { url: `http://127.0.0.1:${slowPort}/` } },
          ],
        },
      },
      { text: 'done' },
    ],
  },
];

const workflow = (name: string, gated: boolean) => `name: ${name}
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt: { system: Benchmark. }
allowedActions: [notes_append, fetch_url]
${gated ? 'gates: { notes_append: needs_approval }\napprovals: { approvers: [bench@example.com], timeoutSeconds: 60 }\n' : ''}trigger: { type: on_demand }
budget: { maxUsdPerRun: 5, maxTurns: 20, maxToolCallsPerTurn: 4 }
`;

const dataDir = await mkdtemp(join(tmpdir(), 'wf-bench-'));
const stack = await startLocalStack({
  dataDir,
  inMemory: true,
  port: 0,
  clock,
  schedulerIntervalMs: 0,
  allowLoopbackPorts: [slowPort],
  fixtures,
  print: () => undefined,
});
const client = new ApiClient(stack.url, { kind: 'api-key', apiKey: stack.apiKey });

async function until<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('timed out');
}

type Measured = { transitions: number; events: number; status: string };

/** Starts a run, lets `onWait` act on its approval link, and counts its execution's transitions. */
async function measure(workflowId: string, onWait?: (link: string) => Promise<void>): Promise<Measured> {
  const { body } = await client.post<{ run: Run }>(
    `/v1/workflows/${workflowId}/runs`,
    {},
    { headers: { 'Idempotency-Key': randomUUID() } },
  );
  const runId = body.run.runId;
  if (onWait) {
    const notice = await until(async () =>
      stack.inbox.notices().find((candidate) => candidate.runId === runId),
    );
    await onWait(notice.url);
  }
  const run = await until(async () => {
    const current = (await client.get<{ run: Run }>(`/v1/runs/${runId}`)).run;
    return current.executionArn && ['done', 'failed', 'denied', 'cancelled'].includes(current.status)
      ? current
      : undefined;
  });
  await stack.sfn.waitForExecution(run.executionArn!);
  return {
    transitions: stack.sfn.stateTransitions(run.executionArn!),
    events: stack.sfn.historyEventCount(run.executionArn!),
    status: run.status,
  };
}

/**
 * Measures RUNS identical runs. A run whose gated call was denied or expired finishes its work but ends
 * `denied` (degraded, see docs/approvals.md), so those cases expect `denied`.
 */
async function repeat(
  workflowId: string,
  onWait?: (link: string) => Promise<void>,
  expected: Run['status'] = 'done',
): Promise<Measured> {
  const results: Measured[] = [];
  for (let i = 0; i < RUNS; i++) results.push(await measure(workflowId, onWait));
  const first = results[0]!;
  if (results.some((result) => result.transitions !== first.transitions || result.status !== expected)) {
    throw new Error(`runs differ or did not end ${expected}: ${JSON.stringify(results)}`);
  }
  return first;
}

try {
  const ids: Record<string, string> = {};
  for (const fixture of fixtures) {
    const { body } = await client.post<{ workflow: { workflowId: string } }>(
      '/v1/workflows',
      workflow(fixture.name!, fixture.name!.startsWith('gated')),
      {
        contentType: 'application/yaml',
      },
    );
    ids[fixture.name!] = body.workflow.workflowId;
  }

  const plain1 = await repeat(ids['plain-1']!);
  const plain2 = await repeat(ids['plain-2']!);
  const plainLong = await repeat(ids[`plain-${LONG}`]!);
  const approved = await repeat(ids.gated!, async (link) => void (await decideThroughPage(link, 'approve')));
  const denied = await repeat(
    ids.gated!,
    async (link) => void (await decideThroughPage(link, 'deny')),
    'denied',
  );
  // No decision: the window closes (the clock moves 3 s on) and the real 2 s wait times out → Expire.
  const expired = await repeat(
    ids['gated-slow']!,
    async () => {
      offsetMs += 3_000;
    },
    'denied',
  );

  const plain = {
    transitions: (plainLong.transitions - plain1.transitions) / (LONG - 1),
    events: (plainLong.events - plain1.events) / (LONG - 1),
  };
  const fixed = { transitions: plain1.transitions - plain.transitions, events: plain1.events - plain.events };
  const gatedTurn = (m: Measured) => ({
    transitions: m.transitions - fixed.transitions - plain.transitions,
    events: m.events - fixed.events - plain.events,
  });
  const row = (turn: string, states: string, m: { transitions: number; events: number }) => ({
    turn,
    states,
    'transitions/turn': m.transitions,
    'history events/turn (approx.)': m.events,
    'USD per 1M': (m.transitions * USD_PER_TRANSITION * 1e6).toFixed(2),
  });

  printTable(`Step Functions state transitions per turn, local stack (${RUNS} runs each, all identical)`, [
    row('plain (model call, allowed tool or final answer)', 'Turn, Route', plain),
    row('gated, approved through the page', 'Turn, Route, RequestApproval', gatedTurn(approved)),
    row('gated, denied through the page', 'Turn, Route, RequestApproval', gatedTurn(denied)),
    row('gated, no decision (timeout)', 'Turn, Route, RequestApproval, Expire', gatedTurn(expired)),
    row('once per run (start and end)', 'Deliver (ends the execution)', fixed),
  ]);
  printTable('Whole runs measured (transitions per execution)', [
    { run: '1 plain turn (final answer)', transitions: plain1.transitions, 'history events': plain1.events },
    { run: '2 plain turns', transitions: plain2.transitions, 'history events': plain2.events },
    { run: `${LONG} plain turns`, transitions: plainLong.transitions, 'history events': plainLong.events },
    {
      run: 'gated turn approved + final answer',
      transitions: approved.transitions,
      'history events': approved.events,
    },
    {
      run: 'gated turn denied + final answer',
      transitions: denied.transitions,
      'history events': denied.events,
    },
    {
      run: 'gated turn expired + final answer',
      transitions: expired.transitions,
      'history events': expired.events,
    },
  ]);
} finally {
  await stack.stop();
  await new Promise((resolve) => slow.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
}
