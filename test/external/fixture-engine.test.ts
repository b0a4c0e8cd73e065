import { afterEach, describe, expect, it } from 'vitest';
import { FixtureEngine } from '../../shared/external/fixture-engine/index.ts';
import { fixtureHarness } from '../support/fixture-harness.ts';

let engine: FixtureEngine | undefined;
afterEach(() => engine?.close());

describe('Class: FixtureEngine', () => {
  it('listens on loopback only and announces the protocol and its incarnation', async () => {
    engine = await FixtureEngine.start();
    expect(engine.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const info = await (await fetch(`${engine.url}/`)).json();
    expect(info).toEqual({ protocol: 'wf-external-http/1', engine: 'fixture', incarnation: 'fixture-1' });
  });

  it('counts every request by route, dropped ones included', async () => {
    // Prepare
    const harness = await fixtureHarness();
    engine = harness.engine;
    const { execution } = await harness.adapter.start('k1', {});

    // Act
    engine.fault({ kind: 'drop' }, { times: 1 });
    await harness.adapter.observe('k1', execution.incarnation);
    await harness.adapter.observe('k1', execution.incarnation);

    // Assess
    expect(engine.count()).toBe(3);
    expect(engine.count('dispatch')).toBe(1);
    expect(engine.count('status')).toBe(2);
  });

  it('applies a key script over the global one', async () => {
    const harness = await fixtureHarness();
    engine = harness.engine;
    engine.script('*', { outcome: 'failed' }).script('special', { running: 1 });
    const special = await harness.adapter.start('special', {});
    const other = await harness.adapter.start('other', {});
    expect((await harness.adapter.observe('special', special.execution.incarnation)).state).toBe('running');
    expect(await harness.adapter.observe('other', other.execution.incarnation)).toMatchObject({
      state: 'terminal',
      outcome: 'failed',
    });
  });

  it('admits once per key and recreates known executions under a new incarnation on restart', async () => {
    const harness = await fixtureHarness();
    engine = harness.engine;
    const first = await harness.adapter.start('k1', { a: 1 });
    engine.restart();
    expect(engine.execution('k1')?.incarnation).toBe('fixture-2');
    expect(first.execution.incarnation).toBe('fixture-1');
    const again = await harness.adapter.start('k1', { a: 1 });
    expect(again).toMatchObject({ deduplicated: true, execution: { incarnation: 'fixture-2' } });
  });
});
