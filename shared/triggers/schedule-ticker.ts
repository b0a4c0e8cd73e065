/**
 * A store-agnostic schedule ticker for the local stack. Each `tick()` fires, in time order, every scheduled time
 * in (cursor, now] of every schedule, saving each schedule's cursor only after its `fire` resolves. With an
 * idempotent `fire` keyed by (schedule, scheduled time) a scheduled time starts exactly one run, even across a
 * restart that re-fires a time whose cursor was not saved yet. After downtime at most `maxCatchUp` missed times
 * per schedule fire (the newest); older ones are skipped, reported, and never fired later.
 */
import type { Clock } from '../core/ports.ts';
import { ScheduleTickerError } from './errors.ts';
import { fireTimesAfter, parseScheduleOrThrow } from './schedule.ts';
import { type ScheduleCursorStore, toScheduledTimeIso } from './schedule-cursor.ts';
import type { ParsedSchedule } from './schedule-expression.ts';

/** A schedule to tick: an EventBridge Scheduler expression, its time zone (default UTC) and optional start. */
export type TickerSchedule = { key: string; expression: string; timezone?: string; startMs?: number };

/** Starts the run for a scheduled time; must be idempotent for the same (key, scheduled time). */
export type ScheduleFire = (key: string, scheduledTimeIso: string) => Promise<void>;

/** Clock, schedules, cursor store and fire callback of a {@link ScheduleTicker}. */
export type ScheduleTickerOptions = {
  clock: Clock;
  schedules: readonly TickerSchedule[];
  cursors: ScheduleCursorStore;
  fire: ScheduleFire;
  /** Missed scheduled times fired per schedule and tick after downtime; older ones are skipped. Default 10. */
  maxCatchUp?: number;
};

/** What one tick did: times fired, times skipped as too old, and failures (retried next tick). */
export type TickReport = {
  now: string;
  fired: { key: string; scheduledTime: string }[];
  skipped: { key: string; count: number; first: string; last: string }[];
  failed: { key: string; scheduledTime?: string; error: unknown }[];
};

type Entry = { key: string; order: number; schedule: ParsedSchedule; startMs: number | undefined };
type Due = { entry: Entry; at: number };

const floorToSecond = (ms: number): number => Math.floor(ms / 1000) * 1000;

/** Fires due scheduled times exactly once per (schedule, scheduled time), store-agnostic and restart-safe. */
export class ScheduleTicker {
  readonly #clock: Clock;
  readonly #cursors: ScheduleCursorStore;
  readonly #fire: ScheduleFire;
  readonly #maxCatchUp: number;
  readonly #entries: Entry[];
  #queue: Promise<unknown> = Promise.resolve();

  /** Validates every schedule up front; throws {@link ScheduleTickerError} on duplicates or invalid expressions. */
  constructor(options: ScheduleTickerOptions) {
    this.#clock = options.clock;
    this.#cursors = options.cursors;
    this.#fire = options.fire;
    this.#maxCatchUp = options.maxCatchUp ?? 10;
    if (!Number.isInteger(this.#maxCatchUp) || this.#maxCatchUp < 1) {
      throw new ScheduleTickerError(`maxCatchUp must be a whole number ≥ 1, got ${this.#maxCatchUp}`);
    }
    const seen = new Set<string>();
    this.#entries = options.schedules.map((schedule, order) => {
      if (seen.has(schedule.key))
        throw new ScheduleTickerError(`duplicate schedule key ${schedule.key}`, { key: schedule.key });
      seen.add(schedule.key);
      try {
        const parsed = parseScheduleOrThrow(schedule.expression, schedule.timezone ?? 'UTC');
        const startMs = schedule.startMs === undefined ? undefined : floorToSecond(schedule.startMs);
        return { key: schedule.key, order, schedule: parsed, startMs };
      } catch (error) {
        throw new ScheduleTickerError(`schedule ${schedule.key} is invalid: ${(error as Error).message}`, {
          key: schedule.key,
          cause: error,
        });
      }
    });
  }

  /** Fires everything due; concurrent calls run one after another, never interleaved. */
  tick(): Promise<TickReport> {
    const run = this.#queue.then(() => this.#runTick());
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #runTick(): Promise<TickReport> {
    const nowMs = floorToSecond(this.#clock.nowMs());
    const report: TickReport = { now: toScheduledTimeIso(nowMs), fired: [], skipped: [], failed: [] };
    const due: Due[] = [];
    for (const entry of this.#entries) {
      try {
        due.push(...(await this.#plan(entry, nowMs, report)));
      } catch (error) {
        report.failed.push({ key: entry.key, error });
      }
    }
    due.sort((a, b) => a.at - b.at || a.entry.order - b.entry.order);
    const stopped = new Set<string>();
    for (const { entry, at } of due) {
      if (stopped.has(entry.key)) continue;
      const scheduledTime = toScheduledTimeIso(at);
      try {
        await this.#fire(entry.key, scheduledTime);
        await this.#cursors.setCursor(entry.key, scheduledTime);
        report.fired.push({ key: entry.key, scheduledTime });
      } catch (error) {
        // Later times of this schedule wait: the cursor must never pass a time that did not fire.
        stopped.add(entry.key);
        report.failed.push({ key: entry.key, scheduledTime, error });
      }
    }
    return report;
  }

  /** The scheduled times of one schedule to fire this tick; persists skips and first sightings. */
  async #plan(entry: Entry, nowMs: number, report: TickReport): Promise<Due[]> {
    const cursor = await this.#cursors.getCursor(entry.key);
    let afterMs: number;
    if (cursor === undefined) {
      // First sighting: nothing before the start (or before now) is owed; a time equal to it is.
      afterMs = (entry.startMs ?? nowMs) - 1;
    } else {
      afterMs = Date.parse(cursor);
      if (Number.isNaN(afterMs)) {
        throw new ScheduleTickerError(
          `cursor of schedule ${entry.key} is not a timestamp: ${JSON.stringify(cursor)}`,
          {
            key: entry.key,
          },
        );
      }
    }
    // A rate schedule without a start is anchored where it was first seen; cursors stay on that grid.
    const rateStart = entry.startMs ?? (cursor === undefined ? nowMs : afterMs);
    const recent: number[] = [];
    let skippedCount = 0;
    let firstSkipped = 0;
    let lastSkipped = 0;
    for (const at of fireTimesAfter(entry.schedule, afterMs, { startMs: rateStart })) {
      if (at > nowMs) break;
      recent.push(at);
      if (recent.length > this.#maxCatchUp) {
        const dropped = recent.shift() ?? at;
        if (skippedCount === 0) firstSkipped = dropped;
        lastSkipped = dropped;
        skippedCount++;
      }
    }
    if (skippedCount > 0) {
      await this.#cursors.setCursor(entry.key, toScheduledTimeIso(lastSkipped));
      report.skipped.push({
        key: entry.key,
        count: skippedCount,
        first: toScheduledTimeIso(firstSkipped),
        last: toScheduledTimeIso(lastSkipped),
      });
    } else if (cursor === undefined && entry.startMs === undefined && recent.length === 0) {
      // Remember the first sighting, or the next tick would start its window later and lose the times between.
      await this.#cursors.setCursor(entry.key, toScheduledTimeIso(nowMs));
    }
    return recent.map((at) => ({ entry, at }));
  }
}
