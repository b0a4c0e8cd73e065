/**
 * An idempotency marker holds for its window only. DynamoDB's TTL deletes an expired marker days later, and
 * until then it is still read: a key reused after its window must start a new run, not return the old one.
 * The clock is the port the run is prepared with; DynamoDB Local never expires anything by itself.
 */
import { describe, expect, it } from 'vitest';
import { prepareRun } from '../../shared/core/new-run.ts';
import { IDEMPOTENCY_TTL_SECONDS } from '../../shared/runs/start-run.ts';
import { FixedClock, minimalWorkflow, randomIds, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

async function reuse() {
  const clock = new FixedClock();
  const { version } = await seedWorkflow(store, minimalWorkflow());
  const make = () =>
    prepareRun({
      version,
      trigger: { type: 'on_demand', caller: 't' },
      clock,
      ids: randomIds,
      actor: 'owner:t',
    });
  const idem = (requestHash: string) => ({
    scope: 'api',
    key: 'k-expiry',
    requestHash,
    expiresAtEpoch: Math.floor(clock.nowMs() / 1000) + IDEMPOTENCY_TTL_SECONDS,
  });
  const first = await store.createRun(make(), idem('h1'));
  return { clock, make, idem, first };
}

describe('Idempotency key past its window', () => {
  it('returns the same run up to the last second of the window', async () => {
    // Prepare
    const { clock, make, first } = await reuse();
    const original = { scope: 'api', key: 'k-expiry', requestHash: 'h1' };
    const expiresAtEpoch = Math.floor(clock.nowMs() / 1000) + IDEMPOTENCY_TTL_SECONDS;
    clock.advance(IDEMPOTENCY_TTL_SECONDS * 1000);

    // Act
    const again = await store.createRun(make(), { ...original, expiresAtEpoch: expiresAtEpoch + 1 });

    // Assess
    expect(again).toEqual({ run: first.run, created: false });
  });

  it('starts a new run for a key reused after its window, which then holds the key', async () => {
    // Prepare
    const { clock, make, idem, first } = await reuse();
    clock.advance((IDEMPOTENCY_TTL_SECONDS + 1) * 1000);

    // Act
    const later = await store.createRun(make(), idem('h1'));
    const repeated = await store.createRun(make(), idem('h1'));

    // Assess
    expect(later.created).toBe(true);
    expect(later.run.runId).not.toBe(first.run.runId);
    expect(repeated).toEqual({ run: later.run, created: false });
    expect(await store.getRun(first.run.runId)).toEqual(first.run);
  });

  it('takes a different request under an expired key as a new run, not a conflict', async () => {
    // Prepare
    const { clock, make, idem, first } = await reuse();
    clock.advance((IDEMPOTENCY_TTL_SECONDS + 1) * 1000);

    // Act
    const later = await store.createRun(make(), idem('h2'));

    // Assess
    expect(later.created).toBe(true);
    expect(later.run.runId).not.toBe(first.run.runId);
  });
});
