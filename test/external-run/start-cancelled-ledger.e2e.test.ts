/**
 * A Start whose send timed out, then an owner's cancel, then Start again (the machine's retry): the run ends
 * `cancelled` and the `external-start` row is settled in that ending (not sent again, outcome unknown), so no
 * call of an ended run is left `pending`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExternalTransportError } from '../../shared/external/errors.ts';
import type { ExternalAdapter } from '../../shared/external/index.ts';
import type { ExternalRunDeps } from '../../shared/external/run/index.ts';
import {
  applyExternal,
  type ExternalStack,
  externalRunEnded,
  externalWorkflow,
  ledgerOf,
  startExternalRun,
  startExternalStack,
} from './support.ts';

/** The first start reaches the engine, the owner cancels, and the send answers a timeout. */
function timeoutThenCancel(state: { armed: boolean; client?: ExternalStack['client'] }) {
  return (deps: ExternalRunDeps): ExternalRunDeps => ({
    ...deps,
    adapterFor(run, definition) {
      const inner = deps.adapterFor(run, definition);
      const adapter: ExternalAdapter = Object.create(inner);
      adapter.start = async (key, payload) => {
        if (!state.armed || !state.client) return inner.start(key, payload);
        state.armed = false;
        await inner.start(key, payload);
        await state.client.post(`/v1/runs/${run.runId}/cancel`);
        throw new ExternalTransportError(inner.engine, key, 'transport', 'the start timed out', true);
      };
      return adapter;
    },
  });
}

describe('a retried Start after an owner cancel', () => {
  let h: ExternalStack;
  let workflowId: string;
  const state: { armed: boolean; client?: ExternalStack['client'] } = { armed: false };
  beforeAll(async () => {
    h = await startExternalStack({ retryIntervalMs: 10, wrapExternalDeps: timeoutThenCancel(state) });
    state.client = h.client;
    workflowId = await applyExternal(h, 'start-cancelled', externalWorkflow('start-cancelled', 'live'));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('ends the run cancelled with its start row settled, nothing pending', async () => {
    h.engine.clearFaults().script('*', { running: 100_000, abort: 'stop' });
    state.armed = true;
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);

    expect(state.armed).toBe(false);
    expect(run).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    const ledger = await ledgerOf(h, runId);
    expect(ledger.filter((row) => row.status === 'pending')).toEqual([]);
    const start = ledger.find((row) => row.toolUseId.endsWith('start'));
    expect(start).toMatchObject({ status: 'failed' });
    expect(start?.outcome?.content).toContain('notSentAgain');
  });
});
