import { describe, expect, it } from 'vitest';
import { MAX_OBSERVES, nextWaitSeconds } from '../../shared/external/run/backoff.ts';
import { executionKeyFor, externalPayloadFor } from '../../shared/external/run/key.ts';

const base = { initialSeconds: 5, maxSeconds: 300, observes: 1, nowMs: 0, deadlineMs: 24 * 3600_000 };

describe('the wait between observes', () => {
  it('starts at the initial interval and doubles up to the maximum', () => {
    const waits: number[] = [];
    let previous: number | undefined;
    for (let i = 0; i < 9; i++) {
      previous = nextWaitSeconds({ ...base, previousSeconds: previous });
      waits.push(previous);
    }
    expect(waits).toEqual([5, 10, 20, 40, 80, 160, 300, 300, 300]);
  });

  it('never waits past the run deadline or the unknown deadline, and at least one second', () => {
    expect(nextWaitSeconds({ ...base, previousSeconds: 300, deadlineMs: 42_000 })).toBe(42);
    expect(nextWaitSeconds({ ...base, previousSeconds: 300, unknownDeadlineMs: 7_500 })).toBe(8);
    expect(nextWaitSeconds({ ...base, previousSeconds: 300, deadlineMs: 100 })).toBe(1);
  });

  it('spreads the observes left over the time left, so one execution stays under its history limit', () => {
    // Interval 1 s for a week-long run would be 604,800 observes; the floor keeps them ≤ MAX_OBSERVES.
    const week = 7 * 24 * 3600;
    const wait = nextWaitSeconds({
      ...base,
      initialSeconds: 1,
      maxSeconds: 1,
      previousSeconds: 1,
      deadlineMs: week * 1000,
    });
    expect(wait).toBe(Math.ceil(week / (MAX_OBSERVES - 1)));
    expect(Math.ceil(week / wait)).toBeLessThanOrEqual(MAX_OBSERVES);
  });
});

describe('the admission key and payload', () => {
  it('derives the key from the run id only, in the protocol key alphabet', () => {
    const key = executionKeyFor('run_abc_123');
    expect(key).toBe('wf-run-abc-123');
    expect(key).toMatch(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/);
    expect(executionKeyFor('run_abc_123')).toBe(key);
  });

  it("puts the run input under `input` next to the workflow's payload", () => {
    expect(externalPayloadFor({ payload: { branch: 'main' } }, { commit: 'a1' })).toEqual({
      branch: 'main',
      input: { commit: 'a1' },
    });
    expect(externalPayloadFor({ payload: {} }, undefined)).toEqual({ input: null });
  });
});
