/**
 * A Start that never got a usable answer (a reset after the request was sent, a request dropped unread) leaves
 * the run with no incarnation. On the local stack with the fixture engine:
 * - the run fails (Start's retries exhausted): the key is looked up (a read, never a re-sent start) and the
 *   execution the engine admitted is cancelled before the run ends;
 * - the engine never received it: nothing is cancelled, and the run says the engine never admitted it;
 * - the engine cannot be asked at all: the run's facts and error say the execution may still run;
 * - an owner's cancel that lands between the engine's admission and Start's commit: Start sends nothing again,
 *   the admitted execution is cancelled by its key and the run ends cancelled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExternalAdapter } from '../../shared/external/index.ts';
import { type ExternalRunDeps, executionKeyFor } from '../../shared/external/run/index.ts';
import {
  applyExternal,
  type ExternalStack,
  externalEvents,
  externalRunEnded,
  externalWorkflow,
  startExternalRun,
  startExternalStack,
} from './support.ts';

/** With `cancelAfterAdmission` set, the owner cancels right after the engine admitted, before Start commits. */
function cancelDuringStart(state: { cancelAfterAdmission: boolean; client?: ExternalStack['client'] }) {
  return (deps: ExternalRunDeps): ExternalRunDeps => ({
    ...deps,
    adapterFor(run, definition) {
      const inner = deps.adapterFor(run, definition);
      const adapter: ExternalAdapter = Object.create(inner);
      adapter.start = async (key, payload) => {
        const started = await inner.start(key, payload);
        if (state.cancelAfterAdmission && state.client) {
          state.cancelAfterAdmission = false;
          await state.client.post(`/v1/runs/${run.runId}/cancel`);
        }
        return started;
      };
      return adapter;
    },
  });
}

describe('a Start that never got an answer', () => {
  let h: ExternalStack;
  let workflowId: string;
  const race: { cancelAfterAdmission: boolean; client?: ExternalStack['client'] } = {
    cancelAfterAdmission: false,
  };
  beforeAll(async () => {
    h = await startExternalStack({ retryIntervalMs: 10, wrapExternalDeps: cancelDuringStart(race) });
    race.client = h.client;
    workflowId = await applyExternal(h, 'unanswered', externalWorkflow('unanswered', 'live'));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a run that fails is looked up by its key and its admitted execution cancelled', async () => {
    h.engine.clearFaults().script('*', { running: 100_000, abort: 'stop' });
    h.engine.fault({ kind: 'drop_after' }, { route: 'dispatch', times: 1_000 });
    const aborts = h.engine.count('abort');
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);
    h.engine.clearFaults();
    const key = executionKeyFor(runId);

    expect(run).toMatchObject({ status: 'failed', stopReason: 'error' });
    expect(run.external?.incarnation).toBeUndefined(); // learned for the cancel only, never adopted
    expect(run.error?.message).toContain("the engine's execution was cancelled");
    expect(run.external?.cancel).toMatchObject({
      byKey: 'found',
      incarnation: h.engine.incarnation,
      requested: true,
      acknowledged: true,
      stopped: true,
    });
    expect(h.engine.count('abort') - aborts).toBe(1);
    expect(h.engine.execution(key)?.cancel).toBe('done');
    expect(await externalEvents(h, runId)).toContainEqual(
      expect.objectContaining({ event: 'execution_looked_up', byKey: 'found' }),
    );
  });

  it('a start the engine never received: nothing to cancel, and the run says it was never admitted', async () => {
    h.engine.clearFaults().fault({ kind: 'drop' }, { route: 'dispatch', times: 1_000 });
    const aborts = h.engine.count('abort');
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);
    h.engine.clearFaults();

    expect(h.engine.execution(executionKeyFor(runId))).toBeUndefined();
    expect(run.status).toBe('failed');
    expect(run.external?.cancel).toMatchObject({ byKey: 'not_found', requested: false, stopped: false });
    expect(run.error?.message).toContain('the engine never admitted the execution');
    expect(h.engine.count('abort') - aborts).toBe(0);
  });

  it('an engine that cannot be asked which execution holds the key: the run says it may still run', async () => {
    h.engine.clearFaults().script('*', { running: 100_000 });
    h.engine.fault({ kind: 'drop_after' }, { route: 'dispatch', times: 1_000 });
    h.engine.fault({ kind: 'drop' }, { route: 'status', times: 1_000 });
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);
    h.engine.clearFaults();

    expect(h.engine.execution(executionKeyFor(runId))?.cancel).toBe('none');
    expect(run.status).toBe('failed');
    expect(run.external?.cancel).toMatchObject({ byKey: 'unanswered', requested: false, stopped: false });
    expect(run.error?.message).toContain('could not be asked to cancel');
    expect(run.error?.message).toContain('it may still run');
  });

  it("an owner's cancel between the engine's admission and Start's commit: nothing re-sent, cancelled by key", async () => {
    h.engine.clearFaults().script('*', { running: 100_000, abort: 'stop' });
    const dispatches = h.engine.count('dispatch');
    const aborts = h.engine.count('abort');
    race.cancelAfterAdmission = true;
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);

    expect(race.cancelAfterAdmission).toBe(false);
    expect(run).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    expect(h.engine.count('dispatch') - dispatches).toBe(1);
    expect(h.engine.count('abort') - aborts).toBe(1);
    expect(h.engine.execution(executionKeyFor(runId))?.cancel).toBe('done');
    expect(run.external?.cancel).toMatchObject({ byKey: 'found', requested: true, stopped: true });
  });
});
