/**
 * The whole local stack (its process and its DynamoDB Local) SIGKILLed at eight points of runs that make a
 * non-idempotent call, an idempotent one and a gated one, and deliver to an HTTP destination; restarted on the
 * same data each time. Kill points wait for observable events (a receiver got a request, the model answered,
 * an approval was decided, a run became `done`), plus two after a fixed time. Loopback receivers and the
 * scripted model server, in this process, count what really happened; the assertions hold at any kill point.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyWorkflow } from '../../shared/cli/commands.ts';
import { isDeliverable } from '../../shared/core/degraded.ts';
import { costOf, DEFAULT_PRICES, priceFor } from '../../shared/core/pricing.ts';
import { freePort } from '../../shared/local/free-port.ts';
import type { SfnRefusal } from '../../shared/local/sfn/index.ts';
import {
  type ScriptedFixture,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../shared/model/index.ts';
import { isTerminalRunStatus, type Run } from '../../shared/schemas/run.ts';
import { type FakeRemote, fakeRemote, type Received } from '../actions/support.ts';
import { APPROVER, type AuditView, openPage, postForm, removeDir, tempDataDir } from '../e2e/support.ts';
import { testDefinitions } from '../support/local-definitions.ts';
import {
  inboxLinks,
  modelProxy,
  type StackLife,
  startStackProcess,
  type WarmStackProcess,
  warmStackProcess,
} from './support.ts';

const MODEL = 'claude-sonnet-5-5';
const USAGE = { input_tokens: 100, output_tokens: 10 };
const RUNS = 4;
const name = (i: number) => `crash-kill-${i}`;

const workflow = (i: number, origin: string) => `name: ${name(i)}
description: crash - a non-idempotent, an idempotent and a gated call, then an HTTP destination.
model: { id: ${MODEL}, maxTokens: 256 }
prompt:
  system: Update ticket ${i}.
allowedActions: [post_comment, set_status, notes_append]
connectors:
  post_comment:
    kind: http
    description: Add a comment (not idempotent).
    method: POST
    url: ${origin}/comments
    input: { type: object, properties: { text: { type: string } }, required: [text] }
  set_status:
    kind: http
    description: Set the ticket status.
    method: PUT
    url: ${origin}/status
    input: { type: object, properties: { status: { type: string } }, required: [status] }
    idempotent: true
  send_result:
    kind: http
    description: Receives the run's result.
    method: POST
    url: ${origin}/results
    input:
      type: object
      properties: { runId: { type: string }, workflow: { type: string }, result: { type: string } }
      required: [runId, workflow, result]
gates: { post_comment: allow, set_status: allow, notes_append: needs_approval }
approvals: { approvers: [${APPROVER}], timeoutSeconds: 600 }
destination: { type: http, action: send_result }
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 6, maxToolCallsPerTurn: 4 }
`;

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown> };
const reply = (content: Block[]) => ({ response: { content, usage: USAGE } });
const fixture = (i: number): ScriptedFixture => ({
  name: name(i),
  turns: [
    reply([
      { type: 'text', text: 'Updating.' },
      { type: 'tool_use', name: 'post_comment', input: { text: `comment ${i}` } },
      { type: 'tool_use', name: 'set_status', input: { status: `closed ${i}` } },
    ]),
    reply([{ type: 'tool_use', name: 'notes_append', input: { name: 'log', line: `line ${i}` } }]),
    reply([{ type: 'text', text: `Finished ${i}.` }]),
  ],
});

type Event = { kind: 'remote'; request: Received } | { kind: 'model' } | { kind: 'approved' };
type KillPoint = { name: string; when: ((event: Event) => boolean) | 'done' | number };

/** Where the stack dies, one per life; a point that does not come within 20 s kills then. */
const KILL_POINTS: KillPoint[] = [
  {
    name: 'a non-idempotent request arrived',
    when: (e) => e.kind === 'remote' && e.request.path === '/comments',
  },
  { name: 'an idempotent request arrived', when: (e) => e.kind === 'remote' && e.request.path === '/status' },
  { name: 'the model answered (unheard)', when: (e) => e.kind === 'model' },
  { name: 'an approval was decided', when: (e) => e.kind === 'approved' },
  {
    name: 'a result arrived at the destination',
    when: (e) => e.kind === 'remote' && e.request.path === '/results',
  },
  { name: 'a run became done', when: 'done' },
  { name: 'after 1.5 s', when: 1_500 },
  { name: 'after 4 s', when: 4_000 },
];

let dataDir: string;
/** Where the test run's state machines are, for every life's process (it synthesizes none). */
let definitionsDir: string;
let remote: FakeRemote;
let scripted: ScriptedModelServer;
let proxy: Awaited<ReturnType<typeof modelProxy>>;
let life: StackLife | undefined;
/** The next life's process, warming while this life runs. */
let next: WarmStackProcess | undefined;
let armed: KillPoint | undefined;
const killed: string[] = [];

function fire(event: Event): void {
  const point = armed;
  if (!point || typeof point.when !== 'function' || !point.when(event)) return;
  armed = undefined;
  killed.push(point.name);
  life?.kill();
}

beforeAll(async () => {
  dataDir = await tempDataDir();
  definitionsDir = await tempDataDir();
  writeFileSync(join(definitionsDir, 'definitions.json'), JSON.stringify(testDefinitions()));
  remote = await fakeRemote((request) => {
    fire({ kind: 'remote', request });
    return { body: 'ok' };
  });
  scripted = await startScriptedModelServer({ fixtures: Array.from({ length: RUNS }, (_, i) => fixture(i)) });
  proxy = await modelProxy(scripted.url, () => fire({ kind: 'model' }));
});

afterAll(async () => {
  next?.kill();
  life?.kill();
  await life?.exited;
  await proxy?.close();
  await scripted?.close();
  await remote?.close();
  await removeDir(dataDir);
  await removeDir(definitionsDir);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Approves every link in the inbox, as an approver's browser would (GET the page, POST its form). */
async function approveAll(current: StackLife, decided: Set<string>): Promise<void> {
  for (const link of await inboxLinks(current)) {
    if (decided.has(link)) continue;
    const form = await openPage(link);
    const { status } = await postForm(form.action, { t: form.t, nonce: form.nonce, decision: 'approve' });
    decided.add(link);
    if (status === 200) fire({ kind: 'approved' });
  }
}

async function runsOf(current: StackLife, runIds: string[]): Promise<Run[]> {
  return Promise.all(
    runIds.map(async (id) => (await current.client.get<{ run: Run }>(`/v1/runs/${id}`)).run),
  );
}

/** Drives one life until its kill point fires (or, with none, until every run ended and was delivered). */
async function drive(current: StackLife, runIds: string[], point: KillPoint | undefined): Promise<void> {
  armed = point;
  const started = Date.now();
  const decided = new Set<string>();
  for (;;) {
    if (point && armed === undefined) return;
    const elapsed = Date.now() - started;
    if (point && (elapsed > 20_000 || (typeof point.when === 'number' && elapsed >= point.when))) {
      killed.push(elapsed > 20_000 ? `${point.name} (did not come: killed at 20 s)` : point.name);
      armed = undefined;
      current.kill();
      return;
    }
    try {
      await approveAll(current, decided);
      const runs = await runsOf(current, runIds);
      if (point?.when === 'done' && runs.some((run) => run.status === 'done' && !run.delivery)) {
        armed = undefined;
        killed.push(point.name);
        current.kill();
        return;
      }
      if (
        !point &&
        runs.every((run) => isTerminalRunStatus(run.status) && (!isDeliverable(run) || run.delivery))
      )
        return;
      if (!point && elapsed > 60_000)
        throw new Error(`runs did not end: ${JSON.stringify(runs.map((r) => r.status))}`);
    } catch (error) {
      if (!point) throw error;
      // The stack died under a request: that is this test's business, not a failure.
    }
    await sleep(100);
  }
}

describe('The local stack killed at random points of runs', () => {
  it('ends every run, repeats no non-idempotent call, delivers once, and loses no spend or audit link', {
    timeout: 300_000,
  }, async () => {
    // Prepare
    const port = await freePort();
    const config = {
      dataDir,
      port,
      scriptedModelUrl: proxy.url,
      allowLoopbackPorts: [remote.port],
      internalHosts: ['127.0.0.1'],
      definitionsFile: join(definitionsDir, 'definitions.json'),
    };
    life = await startStackProcess(config);
    const runIds: string[] = [];
    const startRuns = async (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const file = join(dataDir, `${name(i)}.workflow.yaml`);
        writeFileSync(file, workflow(i, remote.origin));
        const out = { json: false, line: () => undefined, data: () => undefined };
        expect(await applyWorkflow(life!.client, file, out)).toBe(0);
        const list = await life!.client.get<{ items: { workflowId: string; name: string }[] }>(
          '/v1/workflows?limit=100',
        );
        const workflowId = list.items.find((item) => item.name === name(i))!.workflowId;
        const { body } = await life!.client.post<{ run: Run }>(
          `/v1/workflows/${workflowId}/runs`,
          {},
          {
            headers: { 'Idempotency-Key': randomUUID() },
          },
        );
        runIds.push(body.run.runId);
      }
    };

    // Act: two runs at first, one more after the second and the fourth restart; a kill point per life.
    await startRuns(0, 2);
    // Each restart's process warms (imports, reads the state machines) while the life before it runs.
    next = warmStackProcess(config);
    // What each life's Step Functions endpoint refused as AWS would (a killed life's too: stack-process.ts).
    const refused: SfnRefusal[] = [];
    for (const [index, point] of KILL_POINTS.entries()) {
      await drive(life, runIds, point);
      await life.exited;
      refused.push(...life.sfnRefusals());
      const starting = next!.start();
      next = index < KILL_POINTS.length - 1 ? warmStackProcess(config) : undefined;
      life = await starting;
      if (index === 1) await startRuns(2, 3);
      if (index === 3) await startRuns(3, 4);
    }
    await drive(life, runIds, undefined);
    refused.push(...life.sfnRefusals());
    const runs = await runsOf(life, runIds);
    const audits = await Promise.all(runIds.map((id) => life!.client.get<AuditView>(`/v1/runs/${id}/audit`)));

    // Assess: every kill happened, every run ended.
    expect(killed).toHaveLength(KILL_POINTS.length);
    for (const run of runs) expect(isTerminalRunStatus(run.status)).toBe(true);
    // No non-idempotent request received twice.
    const comments = remote.received.filter((request) => request.path === '/comments');
    const commentKeys = comments.map((request) => request.headers['idempotency-key']);
    expect(new Set(commentKeys).size).toBe(commentKeys.length);
    expect(new Set(comments.map((request) => request.body)).size).toBe(comments.length);
    // An idempotent call re-sent carries the key of its first sending.
    const statusKeys = new Map<string, Set<unknown>>();
    for (const request of remote.received.filter((r) => r.path === '/status'))
      statusKeys.set(
        request.body,
        (statusKeys.get(request.body) ?? new Set()).add(request.headers['idempotency-key']),
      );
    for (const keys of statusKeys.values()) expect(keys.size).toBe(1);
    // Every deliverable run delivered, recorded once, and every sending of it with one key.
    for (const [index, run] of runs.entries()) {
      if (!isDeliverable(run)) continue;
      expect(run.delivery).toMatchObject({ destination: 'http', status: 'delivered' });
      expect(audits[index]!.entries.filter((entry) => entry.type === 'delivered')).toHaveLength(1);
      const sent = remote.received.filter(
        (r) => r.path === '/results' && JSON.parse(r.body).runId === run.runId,
      );
      expect(sent.length).toBeGreaterThanOrEqual(1);
      expect(new Set(sent.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    }
    // Spend recorded covers every model call made (the scripted server counts them).
    const perCall = costOf(
      {
        inputTokens: USAGE.input_tokens,
        outputTokens: USAGE.output_tokens,
        cacheCreationInputTokens: 0,
        cacheReadInputTokens: 0,
      },
      priceFor(MODEL, DEFAULT_PRICES),
    );
    for (const [index, run] of runs.entries()) {
      const made = scripted.requests.filter(
        (r) => r.fixture === name(index) && r.path === '/v1/messages',
      ).length;
      expect({ run: run.runId, recorded: run.costUsd >= made * perCall - 1e-9 }).toEqual({
        run: run.runId,
        recorded: true,
      });
    }
    // Every audit chain verifies.
    for (const audit of audits) expect(audit.verification.ok).toBe(true);
    expect(scripted.failures).toEqual([]);
    // No life, recovering or killed, sent Step Functions a request AWS refuses.
    expect(refused).toEqual([]);
  });
});
