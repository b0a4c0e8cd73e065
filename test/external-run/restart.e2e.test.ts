/**
 * The local stack killed while an external run waits between observes: on the next start the run is resumed,
 * Start finds its execution admitted (the ledger row settled) and goes back to observing it — no second
 * dispatch — and the run finishes and is delivered.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { FixtureEngine } from '../../shared/external/fixture-engine/index.ts';
import { executionKeyFor } from '../../shared/external/run/index.ts';
import {
  createOwnTable,
  type E2eStack,
  eventually,
  getRun,
  removeDir,
  startE2eStack,
  tempDataDir,
} from '../e2e/support.ts';
import { applyExternal, externalWorkflow, startExternalRun } from './support.ts';

describe('an external run across a local stack restart', () => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  it('is resumed into observing the execution it started, and delivered', async () => {
    const engine = await FixtureEngine.start();
    closers.push(() => engine.close());
    engine.script('*', { running: 2, artifacts: [{ path: 'result.json', content: '{"resumed":true}' }] });
    const dataDir = await tempDataDir();
    closers.push(() => removeDir(dataDir));
    const table = await createOwnTable();
    const options = {
      dataDir,
      allowLoopbackPorts: [engine.port],
      externalEngines: { 'http-runtime': { enabled: true, settings: { endpoint: engine.url } } },
    };
    // First life: the run is admitted, then sits in ObserveWait (a minute) when the stack goes down.
    const first: E2eStack = await startE2eStack(table, { ...options, externalObserveWaitMs: 60_000 });
    const workflowId = await applyExternal(
      first,
      'nightly-restart',
      externalWorkflow('nightly-restart', 'live'),
    );
    const runId = await startExternalRun(first, workflowId);
    await eventually('the run admitted', async () =>
      (await getRun(first, runId)).external?.incarnation ? true : undefined,
    );
    await first.stack.stop();

    const second: E2eStack = await startE2eStack(table, { ...options, externalObserveWaitMs: 5 });
    closers.push(() => second.stack.stop());
    expect(second.stack.resumed).toContain(runId);
    const run = await eventually('the resumed run delivered', async () => {
      const current = await getRun(second, runId);
      return current.delivery ? current : undefined;
    });
    expect(run).toMatchObject({ status: 'done', result: { text: '{"resumed":true}' } });
    expect(run.delivery).toMatchObject({ status: 'delivered' });
    expect(engine.count('dispatch')).toBe(1);
    expect(engine.execution(executionKeyFor(runId))?.observes).toBeGreaterThanOrEqual(3);
  });
});
