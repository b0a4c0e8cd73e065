/**
 * `find` of the http-runtime adapter: the execution the engine holds under a key, whatever its incarnation, read
 * with `GET /executions/{key}` — never a dispatch, which would admit the work a failing run gives up. Unknown key:
 * undefined; no answer: a transport error (the caller records "may run, not cancellable").
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ExternalTransportError } from '../../shared/external/index.ts';
import { type FixtureHarness, fixtureHarness } from '../support/fixture-harness.ts';

let harness: FixtureHarness;
afterEach(() => harness.close());

describe('Adapter: http-runtime, Method: find', () => {
  it("answers the execution under the key (another incarnation's too) without dispatching", async () => {
    harness = await fixtureHarness();
    const { execution } = await harness.adapter.start('run-9.find', { task: 'x' });
    harness.engine.restart(); // the engine recreated it: find names the incarnation it holds now
    const dispatches = harness.engine.count('dispatch');

    const found = await harness.adapter.find?.('run-9.find');

    expect(found).toEqual({ ...execution, incarnation: harness.engine.incarnation });
    expect(found?.incarnation).not.toBe(execution.incarnation);
    expect(harness.engine.count('dispatch')).toBe(dispatches);
  });

  it('answers undefined for a key the engine does not know, and admits nothing', async () => {
    harness = await fixtureHarness();
    expect(await harness.adapter.find?.('run-9.unknown')).toBeUndefined();
    expect(harness.engine.execution('run-9.unknown')).toBeUndefined();
    expect(harness.engine.count('dispatch')).toBe(0);
  });

  it('throws a transport error when the engine gives no answer', async () => {
    harness = await fixtureHarness();
    harness.engine.fault({ kind: 'drop' }, { route: 'status', times: 1 });
    await expect(harness.adapter.find?.('run-9.dropped')).rejects.toBeInstanceOf(ExternalTransportError);
  });
});
