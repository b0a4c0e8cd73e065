/**
 * A live external run on the local stack: Start dispatches the payload with the run's key, Observe loops with
 * Wait until the fixture engine reports success, Finish verifies the result artifact against the manifest,
 * Deliver sends it to the destination (a report). Mode and decisions are in the run's audit chain; the start
 * call is a ledger row settled once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executionKeyFor } from '../../shared/external/run/index.ts';
import {
  applyExternal,
  auditOf,
  type ExternalStack,
  externalEvents,
  externalRunEnded,
  externalWorkflow,
  ledgerOf,
  startExternalRun,
  startExternalStack,
} from './support.ts';

describe('a live external run', () => {
  let h: ExternalStack;
  beforeAll(async () => {
    h = await startExternalStack();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('starts, observes until succeeded, verifies the artifact and delivers it', async () => {
    h.engine.script('*', {
      running: 2,
      summary: 'build green',
      artifacts: [{ path: 'result.json', content: '{"tests":42,"failed":0}' }],
    });
    const workflowId = await applyExternal(h, 'nightly-live', externalWorkflow('nightly-live', 'live'));
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);

    expect(run).toMatchObject({
      kind: 'external',
      status: 'done',
      result: { text: '{"tests":42,"failed":0}' },
    });
    expect(run.external).toMatchObject({
      engine: 'http-runtime',
      mode: 'live',
      key: executionKeyFor(runId),
      incarnation: h.engine.incarnation,
      outcome: { outcome: 'succeeded', summary: 'build green' },
      artifact: { path: 'result.json', size: 23 },
    });
    expect(run.delivery).toMatchObject({ destination: 'report', status: 'delivered' });
    expect(run.delivery?.report).toContain('{"tests":42,"failed":0}');

    // The engine got exactly one dispatch, with the run's key and the exact payload recorded on the run.
    expect(h.engine.count('dispatch')).toBe(1);
    const execution = h.engine.execution(executionKeyFor(runId));
    expect(execution?.payload).toEqual({ branch: 'main', target: 'nightly', input: { commit: 'abc123' } });
    expect(run.external?.payload).toEqual(execution?.payload);
    expect(run.external?.payloadSha256).toBe(execution?.payloadSha256);

    const ledger = await ledgerOf(h, runId);
    expect(ledger).toEqual([
      expect.objectContaining({
        toolUseId: 'external-start',
        tool: 'external:http-runtime.start',
        status: 'completed',
        idempotencyKey: executionKeyFor(runId),
      }),
    ]);
    const events = (await externalEvents(h, runId)).map((event) => event.event);
    expect(events).toEqual(['decided', 'admitted', 'terminal', 'artifact_verified']);
    const { entries, verification } = await auditOf(h, runId);
    expect(verification.ok).toBe(true);
    expect(entries[0]).toMatchObject({ type: 'run_created', data: { mode: 'live', engine: 'http-runtime' } });
    expect(entries.map((entry) => entry.type)).toContain('delivered');
  });
});
