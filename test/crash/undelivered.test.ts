/**
 * A run that ended `done` but whose delivery was never recorded (the stack died between the Turn's commit and
 * Deliver's): before, no restart ever delivered it (start-up resumed only pending, running and
 * awaiting-approval runs). Now the next start delivers it through the same Deliver handler, once, with the
 * Idempotency-Key the lost attempts carried.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliverDeps } from '../../shared/core/deliver.ts';
import { LambdaFault } from '../../shared/local/sfn/index.ts';
import { type FakeRemote, fakeRemote } from '../actions/support.ts';
import {
  applyWorkflowText,
  createOwnTable,
  type E2eStack,
  eventually,
  executionsOf,
  getAudit,
  removeDir,
  runEnded,
  startE2eStack,
  startRun,
  tempDataDir,
} from '../e2e/support.ts';

const NAME = 'crash-undelivered';

const workflow = (origin: string) => `name: ${NAME}
description: crash - the result goes to an HTTP destination; Deliver dies after sending, every attempt.
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt:
  system: Summarise.
allowedActions: [current_time]
connectors:
  send_result:
    kind: http
    description: Receives the run's result.
    method: POST
    url: ${origin}/results
    input:
      type: object
      properties: { runId: { type: string }, workflow: { type: string }, result: { type: string } }
      required: [runId, workflow, result]
destination: { type: http, action: send_result }
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 2 }
`;

const fixtures = [NAME, `${NAME}-2`].map((name) => ({ name, turns: [{ text: 'All good.' }] }));

/**
 * Deliver sends, then its invocation hangs until `hung` settles: the stack is stopped under it, as a kill would
 * leave it. (The test fails it once the stack aborted its execution, as a killed Lambda's invocation ends:
 * the stack's stop otherwise waits its full bound, 15 s, for a handler that never returns.)
 */
const sendThenHang =
  (sent: () => void, hung: Promise<never>) =>
  (deps: DeliverDeps): DeliverDeps => ({
    ...deps,
    destinations: {
      ...deps.destinations,
      async http(args) {
        await deps.destinations.http(args);
        sent();
        return hung;
      },
    },
  });

/** Deliver sends, then its invocation dies before recording, on every attempt the state machine allows. */
const crashAfterSending = (deps: DeliverDeps): DeliverDeps => ({
  ...deps,
  destinations: {
    ...deps.destinations,
    async http(args) {
      await deps.destinations.http(args);
      throw new LambdaFault('crash', 'killed after sending, before recording the delivery');
    },
  },
});

let table: { endpoint: string; tableName: string };
let dataDir: string;
let remote: FakeRemote;
const stacks: E2eStack[] = [];

beforeAll(async () => {
  table = await createOwnTable();
  dataDir = await tempDataDir();
  remote = await fakeRemote(() => ({ body: 'received' }));
});

afterAll(async () => {
  for (const e2e of stacks) await e2e.stack.stop();
  await remote?.close();
  await removeDir(dataDir);
});

describe('A finished run whose delivery was lost', () => {
  it('is delivered on the next start, once, with the same Idempotency-Key', { timeout: 60_000 }, async () => {
    // Prepare: the run ends done; Deliver sends once, then the stack goes away under it, unrecorded.
    const options = { dataDir, fixtures, allowLoopbackPorts: [remote.port], internalHosts: ['127.0.0.1'] };
    let markSent: () => void = () => undefined;
    const sent = new Promise<void>((resolve) => {
      markSent = resolve;
    });
    let kill: (fault: LambdaFault) => void = () => undefined;
    const hung = new Promise<never>((_resolve, reject) => {
      kill = reject;
    });
    const first = await startE2eStack(table, {
      ...options,
      wrapDeliverDeps: sendThenHang(() => markSent(), hung),
    });
    stacks.push(first);
    const workflowId = await applyWorkflowText(first, NAME, workflow(remote.origin));
    const runId = await startRun(first, workflowId);
    await sent;
    const lost = await first.stack.store.getRun(runId);
    const sentBefore = remote.received.length;
    const stopped = first.stack.stop();
    await eventually(
      'the stopping stack to abort the run',
      async () =>
        (await executionsOf(first, runId)).every((execution) => execution.status === 'ABORTED') || undefined,
    );
    kill(new LambdaFault('crash', 'the stack was killed under the invocation'));
    await stopped;
    stacks.pop();

    // Act: start again on the same data; then once more.
    const second = await startE2eStack(table, options);
    stacks.push(second);
    const third = await startE2eStack(table, options);
    stacks.push(third);

    // Assess
    expect(lost?.status).toBe('done');
    expect(lost?.delivery).toBeUndefined();
    expect(sentBefore).toBe(1);
    expect(second.stack.delivered).toEqual([runId]);
    expect(third.stack.delivered).toEqual([]);
    expect(remote.received).toHaveLength(2);
    const keys = new Set(remote.received.map((request) => request.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toEqual(expect.any(String));
    expect(JSON.parse(remote.received[1]!.body)).toMatchObject({ runId, result: 'All good.' });
    const run = await second.stack.store.getRun(runId);
    expect(run?.delivery).toMatchObject({ destination: 'http', status: 'delivered' });
    const audit = await getAudit(second, runId);
    expect(audit.verification.ok).toBe(true);
    expect(audit.entries.filter((entry) => entry.type === 'delivered')).toHaveLength(1);
  });

  it('records why it was not delivered when Deliver fails on every attempt (as on AWS)', {
    timeout: 60_000,
  }, async () => {
    // Prepare: Deliver sends and then crashes on all three attempts; the Catch routes to MarkFailed.
    const options = { dataDir, fixtures, allowLoopbackPorts: [remote.port], internalHosts: ['127.0.0.1'] };
    const e2e = await startE2eStack(table, { ...options, wrapDeliverDeps: crashAfterSending });
    stacks.push(e2e);
    const workflowId = await applyWorkflowText(
      e2e,
      `${NAME}-2`,
      workflow(remote.origin).replace(NAME, `${NAME}-2`),
    );
    const before = remote.received.length;

    // Act
    const runId = await startRun(e2e, workflowId);
    const run = await runEnded(e2e, runId);

    // Assess: still done (its work finished), with the failed delivery on the run, audited and anchored.
    expect(run.status).toBe('done');
    expect(remote.received.length - before).toBe(3);
    expect(run.delivery).toMatchObject({
      destination: 'http',
      status: 'refused',
      detail: expect.stringContaining('failed:'),
    });
    const audit = await getAudit(e2e, runId);
    expect(audit.verification.ok).toBe(true);
    expect(audit.entries.at(-1)).toMatchObject({ type: 'error', data: { name: 'DeliveryFailedError' } });
  });
});
