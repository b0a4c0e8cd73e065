/**
 * The Turn handler's telemetry, composed as the AWS composition root composes it (observed store, observed
 * egress, Powertools Logger and Metrics from the POWERTOOLS_* environment): the EMF it writes to stdout, and
 * log lines that carry run, turn and owner but never a credential or a signed URL.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTurnHandler } from '../../functions/turn.ts';
import { RUNTIME_METRICS } from '../../infra/constructs/metric-names.ts';
import type { TurnOutcome, TurnPointer } from '../../shared/core/outcome.ts';
import { createEgress } from '../../shared/egress/index.ts';
import { engineDeps } from '../../shared/runtime/engine-deps.ts';
import { observeStore } from '../../shared/runtime/observed-store.ts';
import { createTelemetry } from '../../shared/runtime/telemetry.ts';
import { observeEgress, telemetryObserver } from '../../shared/runtime/telemetry-observers.ts';
import { type FakeRemote, fakeRemote, secretsFile } from '../actions/support.ts';
import { ScriptedModel, text, toolUse } from '../support/engine.ts';
import { FixedClock, randomIds, seedRun, seedWorkflow, testStore, uniqueOwner } from '../support/store.ts';
import { type Captured, captureOutput, type EmfBlob } from './capture.ts';

const SECRET = 'wf-telemetry-4f0c2b9e71d8a6+Qz/Lm=Tn35';
const SIGNATURE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
const SIGNED_URL = `http://169.254.169.254/latest/meta-data?X-Amz-Signature=${SIGNATURE}`;

const workflowFile = (port: number, owner: string) => `
name: telemetry-flow
model: { id: claude-sonnet-5-5 }
prompt: { system: Check the account status. }
allowedActions: [account_status, http_request]
connectors:
  account_status:
    kind: http
    description: Read an account's status.
    method: POST
    url: http://127.0.0.1:${port}/echo/{account}
    input:
      type: object
      properties: { account: { type: string } }
      required: [account]
    credential: { slot: echo_token }
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 6 }
credRefs:
  echo_token: { secret: wf/${owner}/echo-token }
`;

const store = testStore();
let echo: FakeRemote;
let output: Captured;

beforeAll(async () => {
  // The remote echoes the request headers back: the credential comes back in the tool result.
  echo = await fakeRemote((request) => ({ body: JSON.stringify({ youSent: request.headers }) }));
});
afterAll(() => echo.close());
beforeEach(() => {
  vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'WfTelemetryTest');
  vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'wf-test');
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'DEBUG');
  output = captureOutput();
});
afterEach(() => {
  output.restore();
  vi.unstubAllEnvs();
});

/** A run whose first turn uses a credential and is refused a signed URL, and whose second turn ends it. */
async function scenario() {
  const clock = new FixedClock();
  // A fresh owner per scenario (workflow names are unique per owner); its credentials are `wf/<owner>/…`.
  const owner = uniqueOwner();
  const telemetry = createTelemetry();
  const model = new ScriptedModel([
    {
      content: [
        text('Checking.'),
        toolUse('a1', 'account_status', { account: 'acme' }),
        toolUse('h1', 'http_request', { method: 'GET', url: SIGNED_URL }),
      ],
      stopReason: 'tool_use',
    },
    { content: [text('The account is fine.')], stopReason: 'end_turn' },
  ]);
  const observed = observeStore(store, telemetryObserver(telemetry));
  const deps = engineDeps({
    store: observed,
    model,
    egress: observeEgress(createEgress({ allowLoopbackPorts: [echo.port] }), telemetry),
    secrets: secretsFile({ [`wf/${owner}/echo-token`]: SECRET }),
    clock,
    ids: randomIds,
    // The echo server stands for an internal service: its POST runs without approval.
    publish: { internalHosts: ['127.0.0.1'] },
  });
  const handler = createTurnHandler(async () => deps, telemetry);
  const { version } = await seedWorkflow(store, workflowFile(echo.port, owner), { clock, owner });
  // Invoked without its attempt (as before the state machine passed it): created without turn 0's reservation,
  // which such an invocation could not spend (core/attempt.ts) and would count as model spend.
  const run = await seedRun(store, version, { clock, firstTurn: false });
  return { handler, run };
}

/** The value of metric `name` in an EMF blob that defines it (with the extra dimension value, if any). */
function emitted(blobs: EmfBlob[], name: string, dimension?: [string, string]) {
  return blobs.flatMap((blob) => {
    const [directive] = blob._aws.CloudWatchMetrics;
    const metric = directive?.Metrics.find((each) => each.Name === name);
    if (!directive || !metric) return [];
    if (dimension && blob[dimension[0]] !== dimension[1]) return [];
    return [
      {
        namespace: directive.Namespace,
        unit: metric.Unit,
        dimensions: directive.Dimensions,
        value: blob[name],
      },
    ];
  });
}

describe('Turn handler telemetry', () => {
  it('emits the turn, model spend, egress denial and run end as EMF, with the construct’s names and units', async () => {
    // Prepare
    const { handler, run } = await scenario();

    // Act
    const first = (await handler({ runId: run.runId, turn: 0, segmentStartTurn: 0 })) as TurnOutcome;
    const firstBlobs = output.emf();
    const pointer: TurnPointer = { runId: run.runId, turn: first.turn, segmentStartTurn: 0 };
    const second = await handler(pointer);
    const allBlobs = output.emf();

    // Assess: the run went as scripted
    expect([first.next, second.next]).toEqual(['continue', 'done']);
    expect(echo.received.at(-1)?.headers.authorization).toBe(`Bearer ${SECRET}`);

    // Assess: the first turn's EMF
    const service = ['service'];
    expect(emitted(firstBlobs, 'Turns', ['Outcome', 'continue'])).toEqual([
      { namespace: 'WfTelemetryTest', unit: 'Count', dimensions: [[...service, 'Outcome']], value: 1 },
    ]);
    const plain = (value: unknown, unit = 'Count') => ({
      namespace: 'WfTelemetryTest',
      unit,
      dimensions: [service],
      value,
    });
    expect(emitted(firstBlobs, 'ModelCalls')).toEqual([plain(1)]);
    expect(emitted(firstBlobs, 'ModelInputTokens')).toEqual([plain(100)]);
    expect(emitted(firstBlobs, 'ModelOutputTokens')).toEqual([plain(50)]);
    // claude-sonnet-5-5 at $2 / $10 per MTok: 100 × 2 + 50 × 10 = 700 µ$
    expect(emitted(firstBlobs, 'ModelCostUsd')).toEqual([plain(0.0007, 'None')]);
    expect(emitted(firstBlobs, 'EgressDenials')).toEqual([plain(1)]);
    expect(emitted(firstBlobs, 'RunsFinished')).toEqual([]);
    for (const blob of firstBlobs) expect(blob.service).toBe('wf-test');

    // Assess: the second turn ended the run
    const secondBlobs = allBlobs.slice(firstBlobs.length);
    expect(emitted(secondBlobs, 'Turns', ['Outcome', 'done'])).toHaveLength(1);
    expect(emitted(secondBlobs, 'RunsFinished', ['Status', 'done'])).toEqual([
      { namespace: 'WfTelemetryTest', unit: 'Count', dimensions: [[...service, 'Status']], value: 1 },
    ]);
    expect(emitted(secondBlobs, 'ModelCalls')).toEqual([plain(1)]);
    expect(emitted(secondBlobs, 'EgressDenials')).toEqual([]);

    // Assess: every metric written is one of the construct's, with its unit
    for (const blob of allBlobs) {
      for (const metric of blob._aws.CloudWatchMetrics[0]!.Metrics) {
        expect(Object.keys(RUNTIME_METRICS)).toContain(metric.Name);
        expect(metric.Unit).toBe(RUNTIME_METRICS[metric.Name as keyof typeof RUNTIME_METRICS].unit);
      }
    }
  });

  it('logs run, turn and owner on its lines, and never the credential or the signed URL', async () => {
    // Prepare
    const { handler, run } = await scenario();

    // Act
    const first = await handler({ runId: run.runId, turn: 0, segmentStartTurn: 0 });
    await handler({ runId: run.runId, turn: first.turn, segmentStartTurn: 0 });

    // Assess: the lines are there and carry the keys (the scan below is not vacuous)
    const logs = output.logs();
    const byMessage = (message: string) => logs.filter((line) => line.message === message);
    expect(byMessage('turn finished')).toEqual([
      expect.objectContaining({ runId: run.runId, turn: 0, owner: run.owner, next: 'continue' }),
      expect.objectContaining({ runId: run.runId, turn: 1, owner: run.owner, next: 'done' }),
    ]);
    expect(byMessage('egress denied')).toEqual([
      expect.objectContaining({ reason: 'metadata', host: '169.254.169.254', runId: run.runId }),
    ]);
    expect(byMessage('run finished')).toEqual([
      expect.objectContaining({ status: 'done', owner: run.owner, service: 'wf-test' }),
    ]);

    // Assess: nothing written contains the credential (in any common encoding) or the signature
    const written = output.chunks.join('');
    for (const form of [
      SECRET,
      encodeURIComponent(SECRET),
      Buffer.from(SECRET).toString('base64'),
      SIGNATURE,
      SIGNED_URL,
    ]) {
      expect(written).not.toContain(form);
    }
  });

  it('counts a turn that throws as an error outcome and still flushes', async () => {
    // Prepare: a run id that does not exist makes the core throw
    const telemetry = createTelemetry();
    const handler = createTurnHandler(async () => {
      throw new Error('no dependencies in this test');
    }, telemetry);

    // Act
    const failure = handler({ runId: 'run_missing', turn: 0, segmentStartTurn: 0 });

    // Assess
    await expect(failure).rejects.toThrow('no dependencies in this test');
    expect(emitted(output.emf(), 'Turns', ['Outcome', 'error'])).toHaveLength(1);
    expect(output.logs()).toContainEqual(
      expect.objectContaining({ message: 'invocation failed', runId: 'run_missing', turn: 0 }),
    );
  });
});
