/**
 * A Start that never got an answer until its retries ran out: AbandonExternal ends the run `failed`, and the
 * `external-start` row is settled in that ending (not sent again, outcome unknown), so no call of an ended run
 * is left `pending`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyExternal,
  type ExternalStack,
  externalRunEnded,
  externalWorkflow,
  ledgerOf,
  startExternalRun,
  startExternalStack,
} from './support.ts';

describe('an abandoned run whose Start got no answer', () => {
  let h: ExternalStack;
  let workflowId: string;
  beforeAll(async () => {
    h = await startExternalStack({ retryIntervalMs: 10 });
    workflowId = await applyExternal(h, 'abandon-ledger', externalWorkflow('abandon-ledger', 'live'));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('ends failed with its start row settled, nothing pending', async () => {
    h.engine.clearFaults().script('*', { running: 100_000, abort: 'stop' });
    h.engine.fault({ kind: 'drop_after' }, { route: 'dispatch', times: 1_000 });
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);
    h.engine.clearFaults();

    expect(run).toMatchObject({ status: 'failed', stopReason: 'error' });
    const ledger = await ledgerOf(h, runId);
    expect(ledger.filter((row) => row.status === 'pending')).toEqual([]);
    const start = ledger.find((row) => row.toolUseId === 'external-start');
    expect(start).toMatchObject({ status: 'failed' });
    expect(start?.outcome?.content).toContain('outcomeUnknown');
  });
});
