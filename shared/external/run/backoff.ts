/**
 * The wait before the next observe: exponential backoff (×2) from `observe.initialIntervalSeconds` up to
 * `observe.maxIntervalSeconds`, never past the run's deadline or the unknown deadline (so either ends on
 * time), and never so short that the execution could run out of history: a Standard execution holds at most
 * 25,000 events (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html), one observe round
 * (Wait, Observe task, Choice) takes under 10, so the observes left are spread over the time left. Pure.
 */

/** The most observe rounds one execution makes (≤ 10 events each: well under 25,000 events). */
export const MAX_OBSERVES = 2000;

export function nextWaitSeconds(args: {
  previousSeconds: number | undefined;
  initialSeconds: number;
  maxSeconds: number;
  observes: number;
  nowMs: number;
  deadlineMs: number;
  unknownDeadlineMs?: number | undefined;
}): number {
  const backoff =
    args.previousSeconds === undefined
      ? args.initialSeconds
      : Math.min(args.maxSeconds, Math.max(args.initialSeconds, args.previousSeconds * 2));
  const untilDeadline = Math.ceil((args.deadlineMs - args.nowMs) / 1000);
  const untilUnknown =
    args.unknownDeadlineMs === undefined
      ? Number.POSITIVE_INFINITY
      : Math.ceil((args.unknownDeadlineMs - args.nowMs) / 1000);
  const left = Math.max(1, MAX_OBSERVES - args.observes);
  // Backing off to the maximum takes at most ~12 doublings (3600 s from 1 s); when the time left at the
  // maximum interval fits the observes left, plain backoff is bounded; otherwise the floor spreads them.
  const atMax = Math.ceil(Math.max(0, untilDeadline) / args.maxSeconds) + 12;
  const floor = atMax <= left ? 0 : Math.ceil(Math.max(0, untilDeadline) / left);
  return Math.max(1, Math.min(Math.max(backoff, floor), untilDeadline, untilUnknown));
}

/**
 * Start's back-off while the engine is at capacity (429/503): 5 s doubling to 60 s, so an owner's cancel is
 * seen within a minute (the next Start reads it before sending anything).
 */
export const CAPACITY_INITIAL_SECONDS = 5;
export const CAPACITY_MAX_SECONDS = 60;

/**
 * The wait before Start tries again while the engine is at capacity: the back-off above; an engine's
 * `Retry-After` is honoured instead, capped at `CAPACITY_MAX_SECONDS` (an engine asking for an hour does not
 * leave a cancel unread for an hour); never past the run's deadline. `rounds` counts observes and earlier
 * capacity attempts together: both loops share the execution's history, so `nextWaitSeconds` spreads them
 * over `MAX_OBSERVES` rounds in all. Pure.
 */
export function nextCapacityWaitSeconds(args: {
  previousSeconds: number | undefined;
  retryAfterSeconds: number | undefined;
  rounds: number;
  nowMs: number;
  deadlineMs: number;
}): number {
  const spread = nextWaitSeconds({
    previousSeconds: args.previousSeconds,
    initialSeconds: CAPACITY_INITIAL_SECONDS,
    maxSeconds: CAPACITY_MAX_SECONDS,
    observes: args.rounds,
    nowMs: args.nowMs,
    deadlineMs: args.deadlineMs,
  });
  if (args.retryAfterSeconds === undefined) return spread;
  const asked = Math.min(Math.max(1, args.retryAfterSeconds), CAPACITY_MAX_SECONDS);
  // The spreading floor still holds (history), and the deadline still bounds it.
  const floor = nextWaitSeconds({
    previousSeconds: undefined,
    initialSeconds: 1,
    maxSeconds: CAPACITY_MAX_SECONDS,
    observes: args.rounds,
    nowMs: args.nowMs,
    deadlineMs: args.deadlineMs,
  });
  const untilDeadline = Math.ceil((args.deadlineMs - args.nowMs) / 1000);
  return Math.max(1, Math.min(Math.max(asked, floor), untilDeadline));
}
