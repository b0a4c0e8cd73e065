/**
 * Start's wait while the engine is at capacity (shared/external/run/backoff.ts) and the engine's `Retry-After`
 * (shared/external/http/answers.ts): the back-off, the header honoured but capped, the deadline, and the history
 * bound — a Standard execution holds at most 25,000 events
 * (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html); a capacity round is StartWait (2
 * events), ExternalStart (5) and RouteExternal (2).
 */
import { describe, expect, it } from 'vitest';
import { answerError, retryAfterOf } from '../../shared/external/http/answers.ts';
import { ExternalRefusedError, isAtCapacity } from '../../shared/external/index.ts';
import {
  CAPACITY_MAX_SECONDS,
  MAX_OBSERVES,
  nextCapacityWaitSeconds,
  nextWaitSeconds,
} from '../../shared/external/run/backoff.ts';

const EVENTS_PER_ROUND = 9;
const HISTORY_LIMIT = 25_000;
const SEVEN_DAYS_MS = 7 * 24 * 3600 * 1000;

/** Rounds until the deadline: every attempt refused, waits as the function chooses. */
function capacityRounds(deadlineMs: number, retryAfterSeconds?: number) {
  let nowMs = 0;
  let previous: number | undefined;
  let rounds = 0;
  let longest = 0;
  while (nowMs < deadlineMs) {
    const wait = nextCapacityWaitSeconds({
      previousSeconds: previous,
      retryAfterSeconds,
      rounds,
      nowMs,
      deadlineMs,
    });
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(wait)).toBe(true);
    longest = Math.max(longest, wait);
    previous = wait;
    nowMs += wait * 1000;
    rounds += 1;
  }
  return { rounds, longest };
}

describe('the capacity wait', () => {
  it('backs off 5, 10, 20, 40, 60, 60 s', () => {
    const waits: number[] = [];
    let previous: number | undefined;
    for (let round = 0; round < 6; round++) {
      previous = nextCapacityWaitSeconds({
        previousSeconds: previous,
        retryAfterSeconds: undefined,
        rounds: round,
        nowMs: 0,
        deadlineMs: 3_600_000,
      });
      waits.push(previous);
    }
    expect(waits).toEqual([5, 10, 20, 40, 60, 60]);
  });

  it("honours the engine's Retry-After, capped at 60 s, and never waits past the deadline", () => {
    const at = (retryAfterSeconds: number, deadlineMs = 3_600_000) =>
      nextCapacityWaitSeconds({ previousSeconds: 40, retryAfterSeconds, rounds: 3, nowMs: 0, deadlineMs });
    expect(at(7)).toBe(7);
    expect(at(0)).toBe(1);
    expect(at(3600)).toBe(CAPACITY_MAX_SECONDS);
    expect(at(30, 12_000)).toBe(12);
  });

  it('the longest deadline (7 days) at the cap stays within the history limit, shared with the observes', () => {
    // At the 60 s cap alone, 7 days would be 10,080 rounds: ~90,700 events, over the limit.
    expect(Math.ceil(SEVEN_DAYS_MS / 1000 / CAPACITY_MAX_SECONDS) * EVENTS_PER_ROUND).toBeGreaterThan(
      HISTORY_LIMIT,
    );
    for (const retryAfter of [undefined, 1, 3600]) {
      const { rounds, longest } = capacityRounds(SEVEN_DAYS_MS, retryAfter);
      expect(rounds).toBeLessThanOrEqual(MAX_OBSERVES);
      expect(rounds * EVENTS_PER_ROUND).toBeLessThan(HISTORY_LIMIT - 1000);
      expect(longest).toBeLessThanOrEqual(Math.ceil(SEVEN_DAYS_MS / 1000 / 1900));
    }
    // Deadlines up to about 33 hours keep the 60 s cap.
    expect(capacityRounds(33 * 3600 * 1000).longest).toBe(CAPACITY_MAX_SECONDS);
  });

  it('capacity rounds and observes share one budget: after 1,000 capacity rounds the observes spread wider', () => {
    const observe = (rounds: number) =>
      nextWaitSeconds({
        previousSeconds: 300,
        initialSeconds: 5,
        maxSeconds: 300,
        observes: rounds,
        nowMs: 0,
        deadlineMs: SEVEN_DAYS_MS,
      });
    expect(observe(1000)).toBeGreaterThan(observe(0));
    expect(observe(1000)).toBe(Math.ceil(SEVEN_DAYS_MS / 1000 / (MAX_OBSERVES - 1000)));
  });
});

describe("the engine's answer", () => {
  it('429 and 503 are capacity, with Retry-After read; any other 4xx is not', () => {
    const answer = (status: number, headers: Record<string, string> = {}) =>
      answerError('http-runtime', 'k1', { status, headers, body: new Uint8Array() });
    const busy = answer(429, { 'Retry-After': '30' });
    expect(isAtCapacity(busy)).toBe(true);
    expect(busy).toMatchObject({ status: 429, retryAfterSeconds: 30 });
    expect(busy.message).toContain('Retry-After 30 s');
    expect(isAtCapacity(answer(503))).toBe(true);
    expect((answer(503) as ExternalRefusedError).retryAfterSeconds).toBeUndefined();
    for (const status of [400, 401, 403, 404, 409, 500, 502])
      expect(isAtCapacity(answer(status)), `${status}`).toBe(false);
    // A credential that could not be loaded now is retryable but not capacity.
    expect(isAtCapacity(new ExternalRefusedError('e', 'k', 'credential', { retryable: true }))).toBe(false);
  });

  it('Retry-After: delay-seconds or an HTTP-date; anything else is ignored', () => {
    const now = Date.parse('2026-12-02T17:00:00Z');
    expect(retryAfterOf({ 'retry-after': '120' }, now)).toBe(120);
    expect(retryAfterOf({ 'retry-after': 'Wed, 02 Dec 2026 17:01:30 GMT' }, now)).toBe(90);
    expect(retryAfterOf({ 'retry-after': 'Wed, 02 Dec 2026 16:00:00 GMT' }, now)).toBe(0);
    expect(retryAfterOf({ 'retry-after': '-5' }, now)).toBeUndefined();
    expect(retryAfterOf({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterOf({}, now)).toBeUndefined();
  });
});
