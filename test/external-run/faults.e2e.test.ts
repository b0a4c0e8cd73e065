/**
 * External runs when things go wrong, on the local stack with the fixture engine:
 * - a corrupted result artifact is rejected, the evidence kept on the run and in the audit chain;
 * - an engine restarted with a new incarnation is refused (the recreated execution is never adopted);
 * - a crash of the Start task after the engine accepted is retried by the state machine with the same key
 *   and payload: the engine deduplicates it, one execution;
 * - cancelling calls the engine's cancel and records requested, acknowledged and stopped apart;
 * - a refused status read (403) is `unknown`, never a verdict; refused until the unknown deadline, the engine's
 *   execution is cancelled before the run ends `outcome_unknown`;
 * - a step that fails for good (the machine's Catch) cancels the engine's execution before the run ends;
 * - the run's deadline cancels the engine's execution and ends the run `timeout`;
 * - an engine that disappears keeps the run observing `unknown` until the unknown deadline, then the run ends
 *   stop reason `outcome_unknown` (last: it closes the engine).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExternalAdapter } from '../../shared/external/index.ts';
import { type ExternalRunDeps, executionKeyFor } from '../../shared/external/run/index.ts';
import { LambdaFault } from '../../shared/local/sfn/index.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { eventually, getRun } from '../e2e/support.ts';
import {
  applyExternal,
  auditOf,
  type ExternalStack,
  externalEvents,
  externalRunEnded,
  externalWorkflow,
  ledgerOf,
  ShiftClock,
  startExternalRun,
  startExternalStack,
} from './support.ts';

/**
 * Crashes the Start task once, right after the engine accepted the dispatch (before the settle); with
 * `observeFails`, every Observe of that run throws a plain error (a step failing for good: no Retry matches).
 */
function crashAfterAccept(state: { armed: boolean; crashed: number; observeFails?: string | undefined }) {
  return (deps: ExternalRunDeps): ExternalRunDeps => ({
    ...deps,
    adapterFor(run, definition) {
      const inner = deps.adapterFor(run, definition);
      const adapter: ExternalAdapter = Object.create(inner);
      adapter.start = async (key, payload) => {
        const started = await inner.start(key, payload);
        if (state.armed) {
          state.armed = false;
          state.crashed += 1;
          throw new LambdaFault('crash', 'killed after the engine accepted, before the settle');
        }
        return started;
      };
      adapter.observe = async (key, incarnation) => {
        if (state.observeFails === run.runId) throw new Error('the observe step broke');
        return inner.observe(key, incarnation);
      };
      return adapter;
    },
  });
}

/** Whether the run's audit chain records the engine's cancel before the run's final status. */
async function cancelledBeforeEnding(h: ExternalStack, runId: string): Promise<boolean> {
  const { entries } = await auditOf(h, runId);
  const cancelled = entries.findIndex(
    (entry) => entry.type === 'external_execution' && entry.data.event === 'cancel_stopped',
  );
  const ended = entries.findIndex((entry) => entry.type === 'status_changed' && entry.data.to === 'failed');
  return cancelled >= 0 && ended > cancelled;
}

const admitted = (h: ExternalStack, runId: string) =>
  eventually(`run ${runId} admitted and observed`, async () => {
    const run = await getRun(h, runId);
    return run.external?.incarnation && (run.external.observes ?? 0) >= 1 ? run : undefined;
  });

describe('external runs when things go wrong', () => {
  let h: ExternalStack;
  const clock = new ShiftClock();
  const crash: { armed: boolean; crashed: number; observeFails?: string | undefined } = {
    armed: false,
    crashed: 0,
  };
  let workflowId: string;
  beforeAll(async () => {
    h = await startExternalStack({ clock, wrapExternalDeps: crashAfterAccept(crash) });
    workflowId = await applyExternal(h, 'nightly', externalWorkflow('nightly', 'live'));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('rejects a corrupted artifact and keeps the evidence', async () => {
    h.engine.script('*', {
      running: 1,
      artifacts: [{ path: 'result.json', content: '{"ok":true}', corrupt: 'digest' }],
    });
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);
    expect(run).toMatchObject({ status: 'failed', error: { name: 'ArtifactRejectedError' } });
    expect(run.result).toBeUndefined();
    expect(run.delivery).toBeUndefined();
    const evidence = run.external?.rejectedArtifact;
    expect(evidence).toMatchObject({
      expected: { path: 'result.json', size: 11 },
      received: { path: 'result.json' },
    });
    expect(evidence?.received?.sha256).not.toBe(evidence?.expected?.sha256);
    const events = await externalEvents(h, runId);
    expect(events.at(-1)).toMatchObject({ event: 'artifact_rejected', evidence });
    expect((await auditOf(h, runId)).verification.ok).toBe(true);
  });

  it('refuses an engine restarted with a new incarnation and never adopts the recreated execution', async () => {
    h.engine.script('*', { running: 100_000 });
    const runId = await startExternalRun(h, workflowId);
    const before = await admitted(h, runId);
    const original = before.external?.incarnation;
    h.engine.restart();
    const run = await externalRunEnded(h, runId);
    expect(run).toMatchObject({ status: 'failed', error: { name: 'IncarnationMismatchError' } });
    expect(run.external?.incarnation).toBe(original);
    expect(h.engine.incarnation).not.toBe(original);
    expect((await externalEvents(h, runId)).at(-1)).toMatchObject({
      event: 'incarnation_refused',
      expected: original,
      actual: h.engine.incarnation,
    });
  });

  it('a crash of Start after the engine accepted is retried into the same execution', async () => {
    h.engine.script('*', { running: 1, artifacts: [{ path: 'result.json', content: '{"ok":1}' }] });
    crash.armed = true;
    const dispatches = h.engine.count('dispatch');
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);
    expect(crash.crashed).toBe(1);
    expect(run).toMatchObject({ status: 'done', result: { text: '{"ok":1}' } });
    // Two dispatches with one key and one payload: the second was answered as the existing execution.
    expect(h.engine.count('dispatch') - dispatches).toBe(2);
    const sent = h.engine.requests.filter((request) => request.route === 'dispatch').slice(-2);
    expect(sent.map((request) => request.headers['idempotency-key'])).toEqual([
      executionKeyFor(runId),
      executionKeyFor(runId),
    ]);
    expect(sent[0]?.body).toBe(sent[1]?.body);
    const ledger = await ledgerOf(h, runId);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ toolUseId: 'external-start', status: 'completed' });
    expect(JSON.parse(ledger[0]?.outcome?.content ?? '{}')).toMatchObject({ deduplicated: true });
    const admittedEvents = (await externalEvents(h, runId)).filter((event) => event.event === 'admitted');
    expect(admittedEvents).toEqual([expect.objectContaining({ deduplicated: true })]);
  });

  it('cancelling calls the engine and records requested, acknowledged and stopped apart', async () => {
    h.engine.script('*', { running: 100_000, abort: 'later' });
    const runId = await startExternalRun(h, workflowId);
    await admitted(h, runId);
    const { body } = await h.client.post<{ run: Run }>(`/v1/runs/${runId}/cancel`);
    expect(body.run.external?.cancelRequested).toBeDefined();
    const run = await externalRunEnded(h, runId);
    expect(run).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    expect(run.external?.cancel).toMatchObject({ requested: true, acknowledged: true, stopped: false });
    expect(h.engine.count('abort')).toBe(1);
    const events = (await externalEvents(h, runId)).map((event) => [
      event.event,
      event.requested ?? event.acknowledged ?? event.stopped,
    ]);
    expect(events.slice(-3)).toEqual([
      ['cancel_requested', true],
      ['cancel_acknowledged', true],
      ['cancel_stopped', false],
    ]);
    const rows = await ledgerOf(h, runId);
    expect(rows.map((row) => [row.toolUseId, row.status])).toEqual([
      ['external-cancel', 'completed'],
      ['external-start', 'completed'],
    ]);
  });

  it("the run's deadline cancels the engine's execution and ends the run timeout", async () => {
    h.engine.script('*', { running: 100_000, abort: 'stop' });
    const runId = await startExternalRun(h, workflowId);
    await admitted(h, runId);
    clock.offsetMs += 3_601_000; // past budget.runTimeoutSeconds (3600)
    const run = await externalRunEnded(h, runId);
    expect(run).toMatchObject({ status: 'failed', stopReason: 'timeout', error: { name: 'RunTimedOut' } });
    expect(run.external?.cancel).toMatchObject({ requested: true, acknowledged: true, stopped: true });
    expect(h.engine.execution(executionKeyFor(runId))?.cancel).toBe('done');
  });

  it('a 4xx on one status read is unknown, not a verdict: the run keeps observing and finishes', async () => {
    h.engine.script('*', { running: 2, artifacts: [{ path: 'result.json', content: '{"ok":2}' }] });
    h.engine.fault({ kind: 'status', status: 403 }, { route: 'status', times: 1 });
    const statusReads = h.engine.count('status');
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);
    h.engine.clearFaults();
    expect(run).toMatchObject({ status: 'done', result: { text: '{"ok":2}' } });
    expect(h.engine.count('status') - statusReads).toBeGreaterThan(1); // the refused read, then more
    expect(h.engine.execution(executionKeyFor(runId))?.cancel).toBe('none');
  });

  it('a status read refused for good ends outcome_unknown after cancelling the execution', async () => {
    h.engine.script('*', { running: 100_000, abort: 'stop' });
    const runId = await startExternalRun(h, workflowId);
    await admitted(h, runId);
    h.engine.fault({ kind: 'status', status: 403 }, { route: 'status' });
    await eventually('observes to answer unknown', async () => {
      const run = await getRun(h, runId);
      return run.external?.unknownSince ? run : undefined;
    });
    expect((await getRun(h, runId)).status).toBe('running');
    expect((await getRun(h, runId)).external?.last?.detail).toContain('refused');
    clock.offsetMs += 61_000; // past observe.unknownDeadlineSeconds (60)
    const run = await externalRunEnded(h, runId);
    h.engine.clearFaults();
    expect(run).toMatchObject({ status: 'failed', stopReason: 'outcome_unknown' });
    expect(run.error?.message).toContain("the engine's execution was cancelled");
    expect(h.engine.execution(executionKeyFor(runId))?.cancel).toBe('done');
    expect(run.external?.cancel).toMatchObject({ requested: true, acknowledged: true, stopped: true });
    const rows = await ledgerOf(h, runId);
    expect(rows.map((row) => [row.toolUseId, row.status])).toEqual([
      ['external-cancel', 'completed'],
      ['external-start', 'completed'],
    ]);
    expect(await cancelledBeforeEnding(h, runId)).toBe(true);
  });

  it("a step that fails for good cancels the engine's execution before the run ends failed", async () => {
    h.engine.clearFaults().script('*', { running: 100_000, abort: 'stop' });
    const runId = await startExternalRun(h, workflowId);
    await admitted(h, runId);
    crash.observeFails = runId;
    const run = await externalRunEnded(h, runId);
    crash.observeFails = undefined;
    expect(run).toMatchObject({ status: 'failed', stopReason: 'error', error: { name: 'Error' } });
    expect(run.error?.message).toContain('the observe step broke');
    expect(run.error?.message).toContain("the engine's execution was cancelled");
    expect(h.engine.execution(executionKeyFor(runId))?.cancel).toBe('done');
    const rows = await ledgerOf(h, runId);
    expect(rows.map((row) => [row.toolUseId, row.status])).toEqual([
      ['external-cancel', 'completed'],
      ['external-start', 'completed'],
    ]);
    expect(await cancelledBeforeEnding(h, runId)).toBe(true);
    expect((await auditOf(h, runId)).verification.ok).toBe(true);
  });

  it('an engine that disappears ends the run outcome_unknown after the unknown deadline', async () => {
    h.engine.clearFaults().script('*', { running: 100_000 });
    const runId = await startExternalRun(h, workflowId);
    await admitted(h, runId);
    await h.engine.close();
    await eventually('observes to answer unknown', async () => {
      const run = await getRun(h, runId);
      return run.external?.unknownSince ? run : undefined;
    });
    expect((await getRun(h, runId)).status).toBe('running'); // unknown is not a failure: it keeps observing
    clock.offsetMs += 61_000; // past observe.unknownDeadlineSeconds (60)
    const run = await externalRunEnded(h, runId);
    expect(run).toMatchObject({
      status: 'failed',
      stopReason: 'outcome_unknown',
      error: { name: 'OutcomeUnknown' },
    });
    expect(run.external?.last).toMatchObject({ state: 'unknown' });
    expect((await externalEvents(h, runId)).at(-1)).toMatchObject({ event: 'outcome_unknown' });
  });
});
