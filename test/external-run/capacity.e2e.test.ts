/**
 * An engine at capacity when a run starts (its Start answered 429 or 503) is back-pressure, not a failure. On the
 * local stack with the fixture engine:
 * - 429 twice (with `Retry-After`), then admitted: the run waits (`running`, `external.last.state` `waiting`,
 *   `external.capacity` with the attempts, the engine's answer and `nextAttemptAt`), then runs to `done`; one
 *   execution, one key, the start row settled once;
 * - at capacity until the run's deadline: the run ends `failed`, stop reason `engine_at_capacity`, nothing more
 *   sent after the deadline, the start row settled;
 * - an owner's cancel during the wait: the next Start sends nothing, the run ends `cancelled`;
 * - a 4xx other than 429 is a refusal at once: `failed`, one dispatch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Output, showRun } from '../../shared/cli/commands.ts';
import { executionKeyFor } from '../../shared/external/run/index.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { consoleSession, textOf } from '../console/support.ts';
import { eventually, getRun } from '../e2e/support.ts';
import {
  applyExternal,
  type ExternalStack,
  externalEvents,
  externalRunEnded,
  externalWorkflow,
  ledgerOf,
  ShiftClock,
  startExternalRun,
  startExternalStack,
} from './support.ts';

const RESULT = [{ path: 'result.json', content: '{"built":true}' }];

describe('an external engine at capacity when a run starts', () => {
  let h: ExternalStack;
  let workflowId: string;
  const clock = new ShiftClock();
  beforeAll(async () => {
    // Each StartWait pauses 300 ms locally: long enough for a test to see the run waiting and act in it.
    h = await startExternalStack({ clock, retryIntervalMs: 10, externalObserveWaitMs: 300 });
    workflowId = await applyExternal(h, 'capacity', externalWorkflow('capacity', 'report_only'));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('429 then 200: the run waits (visible, with the next attempt), then is admitted once and finishes', async () => {
    h.engine.clearFaults().script('*', {
      refuse: 429,
      refuseTimes: 2,
      retryAfter: '7',
      running: 1,
      artifacts: RESULT,
    });
    const dispatches = h.engine.count('dispatch');
    const runId = await startExternalRun(h, workflowId);
    const waiting = await eventually(`run ${runId} waiting on capacity`, async () => {
      const run = await getRun(h, runId);
      return run.external?.capacity?.nextAttemptAt ? run : undefined;
    });
    expect(waiting.status).toBe('running');
    expect(waiting.external?.last).toMatchObject({ state: 'waiting' });
    expect(waiting.external?.last?.detail).toContain('capacity: ');
    expect(waiting.external?.last?.detail).toContain('HTTP 429');
    expect(waiting.external?.capacity).toMatchObject({ status: 429, retryAfterSeconds: 7 });
    // The engine's Retry-After (7 s) is honoured: the next attempt is 7 s after the refusal.
    const capacity = waiting.external?.capacity;
    expect(
      capacity && Date.parse(capacity.nextAttemptAt ?? '') - Date.parse(waiting.external?.last?.at ?? ''),
    ).toBe(7000);

    const run = await externalRunEnded(h, runId);
    expect(run).toMatchObject({ status: 'done', result: { text: '{"built":true}' } });
    expect(h.engine.count('dispatch') - dispatches).toBe(3); // refused, refused, admitted
    expect(run.external?.capacity).toMatchObject({ attempts: 2, status: 429 });
    expect(run.external?.capacity?.nextAttemptAt).toBeUndefined();
    expect(h.engine.execution(executionKeyFor(runId))?.incarnation).toBe(run.external?.incarnation);
    const starts = (await ledgerOf(h, runId)).filter((row) => row.toolUseId === 'external-start');
    expect(starts).toEqual([
      expect.objectContaining({ status: 'completed', idempotencyKey: run.external?.key }),
    ]);
    const events = (await externalEvents(h, runId)).map((entry) => entry.event);
    expect(events.filter((event) => event === 'at_capacity')).toHaveLength(1);
    expect(events).toContain('admitted');
  });

  it("at capacity until the run's deadline: failed, stop reason engine_at_capacity, nothing sent after it", async () => {
    h.engine.clearFaults().script('*', { refuse: 503 });
    const runId = await startExternalRun(h, workflowId);
    await eventually(`run ${runId} refused twice`, async () => {
      const run = await getRun(h, runId);
      return (run.external?.capacity?.attempts ?? 0) >= 2 ? run : undefined;
    });
    clock.offsetMs += 3_601_000; // past budget.runTimeoutSeconds (3600)
    const dispatchesAtDeadline = h.engine.count('dispatch');
    let run: Run;
    try {
      run = await externalRunEnded(h, runId);
    } finally {
      clock.offsetMs = 0;
    }
    expect(run).toMatchObject({
      status: 'failed',
      stopReason: 'engine_at_capacity',
      error: { name: 'EngineAtCapacity' },
    });
    expect(run.error?.message).toContain('the engine was at capacity');
    expect(run.error?.message).toContain('HTTP 503');
    // At most the attempt already under way when the clock moved; none after the deadline was seen.
    expect(h.engine.count('dispatch') - dispatchesAtDeadline).toBeLessThanOrEqual(1);
    expect(run.external?.capacity?.nextAttemptAt).toBeUndefined();
    // Nothing was admitted: the key was looked up, not cancelled.
    expect(h.engine.execution(executionKeyFor(runId))).toBeUndefined();
    expect(run.external?.cancel).toMatchObject({ byKey: 'not_found', requested: false });
    const starts = (await ledgerOf(h, runId)).filter((row) => row.toolUseId === 'external-start');
    expect(starts).toEqual([expect.objectContaining({ status: 'failed' })]);
  });

  it("the wait is visible in the console and the CLI; an owner's cancel during it ends the run cancelled", async () => {
    h.engine.clearFaults().script('*', { refuse: 429 });
    const runId = await startExternalRun(h, workflowId);
    await eventually(`run ${runId} waiting on capacity`, async () => {
      const run = await getRun(h, runId);
      return (run.external?.capacity?.attempts ?? 0) >= 2 ? run : undefined;
    });
    const console = await consoleSession(h.stack.url, h.stack.apiKey);
    const page = textOf((await console.get(`/console/runs/${runId}`)).html);
    expect(page).toContain('Status running');
    expect(page).toMatch(
      /Engine waiting \(capacity: http-runtime: refused: HTTP 429, retry later\); next start attempt \d{4}-/,
    );
    const lines: string[] = [];
    const out: Output = { json: false, line: (text) => lines.push(text), data: () => {} };
    expect(await showRun(h.client, runId, out)).toBe(0);
    expect(lines[0]).toMatch(
      / running .* waiting: engine at capacity \(http-runtime: refused: HTTP 429, retry later\), attempt \d+ at \d{4}-/,
    );

    await h.client.post(`/v1/runs/${runId}/cancel`);
    const dispatchesAtCancel = h.engine.count('dispatch');
    const run = await externalRunEnded(h, runId);
    expect(run).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    expect(h.engine.count('dispatch') - dispatchesAtCancel).toBeLessThanOrEqual(1); // one already under way at most
    expect(run.external?.capacity?.nextAttemptAt).toBeUndefined();
    expect(h.engine.execution(executionKeyFor(runId))).toBeUndefined();
  });

  it('a 4xx other than 429 is a refusal at once: failed, one dispatch', async () => {
    h.engine.clearFaults().script('*', { refuse: 403 });
    const dispatches = h.engine.count('dispatch');
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);
    expect(run).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      error: { name: 'ExternalRefusedError' },
    });
    expect(h.engine.count('dispatch') - dispatches).toBe(1);
    expect(run.external?.capacity).toBeUndefined();
  });
});
