/**
 * Fire times of EventBridge Scheduler expressions, with its documented time zone behaviour:
 * - cron: evaluated on the wall clock of the schedule's time zone. A local time skipped by a spring-forward
 *   change does not fire that day; a local time repeated by a fall-back change fires once, at its first
 *   occurrence ("runs only once and doesn't repeat its invocation").
 * - rate: fixed durations from a start time (a day is 24 hours even across a DST change).
 * - at: once, at the local time; in a gap it is pushed forward by the gap, in an overlap the first occurrence.
 */
import { Cron } from 'croner';
import { ScheduleExpressionError } from './errors.ts';
import { CRONER_OPTIONS } from './schedule-cron.ts';
import { type ParsedSchedule, parseScheduleExpression } from './schedule-expression.ts';
import { instantsOfWallTime, resolveWallTime, wallClockMs } from './time-zone.ts';

/** No real time zone moves its clock by more than this at once; enough look-behind for fall-back overlaps. */
const MAX_CLOCK_SHIFT_MS = 3 * 3_600_000;

/** Options of {@link fireTimesAfter} and {@link nextFireTimes}. */
export type FireTimeOptions = {
  /** Start of a rate schedule: fires at start + k × interval (k ≥ 0). Without it, the grid starts at `after`. */
  startMs?: number;
};

function* cronFireTimes(schedule: ParsedSchedule & { kind: 'cron' }, afterMs: number): Generator<number> {
  const calendar = new Cron(schedule.cronerPattern, CRONER_OPTIONS);
  let wall = wallClockMs(afterMs, schedule.timezone) - MAX_CLOCK_SHIFT_MS;
  for (;;) {
    const next = calendar.nextRun(new Date(wall));
    if (next === null) return;
    wall = next.getTime();
    // No instant in a gap: skipped. Two in an overlap: only the first one fires.
    const first = instantsOfWallTime(wall, schedule.timezone)[0];
    if (first !== undefined && first > afterMs) yield first;
  }
}

function* rateFireTimes(intervalMs: number, afterMs: number, startMs: number | undefined): Generator<number> {
  const anchor = startMs ?? afterMs;
  let k = anchor > afterMs ? 0 : Math.floor((afterMs - anchor) / intervalMs) + 1;
  for (;;) yield anchor + k++ * intervalMs;
}

/** Fire instants (epoch ms) strictly after `afterMs`, ascending; endless for cron and rate unless the years run out. */
export function* fireTimesAfter(
  schedule: ParsedSchedule,
  afterMs: number,
  options: FireTimeOptions = {},
): Generator<number> {
  switch (schedule.kind) {
    case 'cron':
      yield* cronFireTimes(schedule, afterMs);
      return;
    case 'rate':
      yield* rateFireTimes(schedule.intervalMs, afterMs, options.startMs);
      return;
    default: {
      const instant = resolveWallTime(schedule.wallMs, schedule.timezone);
      if (instant > afterMs) yield instant;
    }
  }
}

/** Parses a schedule or throws {@link ScheduleExpressionError} listing every problem. */
export function parseScheduleOrThrow(expression: string, timezone = 'UTC'): ParsedSchedule {
  const parsed = parseScheduleExpression(expression, timezone);
  if (!parsed.ok) {
    throw new ScheduleExpressionError(
      expression,
      timezone,
      parsed.errors.map((error) => ({ path: error.field, message: error.message })),
    );
  }
  return parsed.schedule;
}

/** The next `count` fire times strictly after `after`; throws {@link ScheduleExpressionError} for invalid input. */
export function nextFireTimes(
  expression: string,
  timezone: string,
  after: Date,
  count: number,
  options: FireTimeOptions = {},
): Date[] {
  const schedule = parseScheduleOrThrow(expression, timezone);
  const times: Date[] = [];
  if (count <= 0) return times;
  for (const instant of fireTimesAfter(schedule, after.getTime(), options)) {
    times.push(new Date(instant));
    if (times.length >= count) break;
  }
  return times;
}
