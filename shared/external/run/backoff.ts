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
