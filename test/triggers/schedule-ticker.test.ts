import { describe, expect, it } from 'vitest';
import {
  InMemoryCursorStore,
  type ScheduleCursorStore,
  ScheduleTicker,
  ScheduleTickerError,
  type TickerSchedule,
} from '../../shared/triggers/index.ts';

/** A clock the test moves by hand. */
class FixedClock {
  private ms: number;
  constructor(ms: number) {
    this.ms = ms;
  }
  nowMs(): number {
    return this.ms;
  }
  set(iso: string): void {
    this.ms = Date.parse(iso);
  }
}

/** A run store keyed like the real one: by schedule and scheduled time. Starting a run twice is a no-op. */
class Runs {
  readonly started = new Set<string>();
  readonly calls: string[] = [];
  async fire(key: string, scheduledTime: string): Promise<void> {
    this.calls.push(`${key} ${scheduledTime}`);
    this.started.add(`${key}@${scheduledTime}`);
  }
}

function setup(
  schedules: TickerSchedule[],
  now: string,
  options: { maxCatchUp?: number; cursors?: ScheduleCursorStore } = {},
) {
  const clock = new FixedClock(Date.parse(now));
  const cursors = options.cursors ?? new InMemoryCursorStore();
  const runs = new Runs();
  const make = () =>
    new ScheduleTicker({
      clock,
      schedules,
      cursors,
      fire: (key, time) => runs.fire(key, time),
      ...(options.maxCatchUp === undefined ? {} : { maxCatchUp: options.maxCatchUp }),
    });
  return { clock, cursors, runs, ticker: make(), restart: make };
}

const daily = { key: 'daily', expression: 'cron(0 9 * * ? *)', timezone: 'UTC' };

describe('ScheduleTicker', () => {
  it('fires each scheduled time once, on the first tick at or after it', async () => {
    const { clock, runs, ticker } = setup([daily], '2024-01-01T08:00:00Z');
    for (const now of [
      '2024-01-01T08:59:59Z',
      '2024-01-01T09:00:00Z',
      '2024-01-01T09:00:30Z',
      '2024-01-01T12:00:00Z',
      '2024-01-02T09:00:10Z',
    ]) {
      clock.set(now);
      await ticker.tick();
    }
    expect(runs.calls).toEqual(['daily 2024-01-01T09:00:00Z', 'daily 2024-01-02T09:00:00Z']);
  });

  it('does not fire a tick twice across a simulated restart', async () => {
    const { clock, runs, ticker, restart } = setup([daily], '2024-01-01T08:00:00Z');
    await ticker.tick();
    clock.set('2024-01-01T09:00:05Z');
    await ticker.tick();
    const afterRestart = restart();
    await afterRestart.tick();
    clock.set('2024-01-02T09:00:05Z');
    await afterRestart.tick();
    expect(runs.calls).toEqual(['daily 2024-01-01T09:00:00Z', 'daily 2024-01-02T09:00:00Z']);
  });

  it('re-fires the same scheduled time after a crash before the cursor was saved, which starts no second run', async () => {
    const cursors = new InMemoryCursorStore();
    let crash = true;
    const crashing: ScheduleCursorStore = {
      getCursor: (key) => cursors.getCursor(key),
      setCursor: async (key, time) => {
        if (crash && time === '2024-01-01T09:00:00Z') throw new Error('process killed');
        await cursors.setCursor(key, time);
      },
    };
    const { clock, runs, ticker } = setup([daily], '2024-01-01T08:00:00Z', { cursors: crashing });
    await ticker.tick();
    clock.set('2024-01-01T09:00:05Z');
    const report = await ticker.tick();
    expect(report.failed).toEqual([
      { key: 'daily', scheduledTime: '2024-01-01T09:00:00Z', error: new Error('process killed') },
    ]);
    crash = false;
    await ticker.tick();
    expect(runs.calls).toEqual(['daily 2024-01-01T09:00:00Z', 'daily 2024-01-01T09:00:00Z']);
    expect([...runs.started]).toEqual(['daily@2024-01-01T09:00:00Z']);
  });

  it('advances the cursor only after fire resolves, and retries a failed fire on the next tick', async () => {
    const clock = new FixedClock(Date.parse('2024-01-01T07:59:00Z'));
    const cursors = new InMemoryCursorStore();
    const fired: string[] = [];
    let failures = 1;
    const ticker = new ScheduleTicker({
      clock,
      cursors,
      schedules: [daily, { key: 'hourly', expression: 'cron(0 * * * ? *)' }],
      fire: async (key, time) => {
        if (key === 'daily' && failures-- > 0) throw new Error('run store unavailable');
        fired.push(`${key} ${time}`);
      },
    });
    await ticker.tick();
    clock.set('2024-01-01T10:00:00Z');
    const first = await ticker.tick();
    expect(first.failed).toEqual([
      { key: 'daily', scheduledTime: '2024-01-01T09:00:00Z', error: new Error('run store unavailable') },
    ]);
    expect(await cursors.getCursor('daily')).toBe('2024-01-01T07:59:00Z');
    expect(fired).toEqual([
      'hourly 2024-01-01T08:00:00Z',
      'hourly 2024-01-01T09:00:00Z',
      'hourly 2024-01-01T10:00:00Z',
    ]);
    await ticker.tick();
    expect(fired.at(-1)).toBe('daily 2024-01-01T09:00:00Z');
    expect(await cursors.getCursor('daily')).toBe('2024-01-01T09:00:00Z');
  });

  it('fires due times of all schedules in time order', async () => {
    const { clock, runs, ticker } = setup(
      [
        { key: 'b', expression: 'cron(30 * * * ? *)' },
        { key: 'a', expression: 'cron(0 * * * ? *)' },
      ],
      '2024-01-01T07:59:00Z',
    );
    await ticker.tick();
    clock.set('2024-01-01T09:00:00Z');
    await ticker.tick();
    expect(runs.calls).toEqual([
      'a 2024-01-01T08:00:00Z',
      'b 2024-01-01T08:30:00Z',
      'a 2024-01-01T09:00:00Z',
    ]);
  });

  it('after downtime fires the newest missed times up to maxCatchUp and reports the skipped ones', async () => {
    const { clock, cursors, runs, ticker } = setup(
      [{ key: 'hourly', expression: 'cron(0 * * * ? *)' }],
      '2024-01-01T00:30:00Z',
      {
        maxCatchUp: 2,
      },
    );
    await ticker.tick();
    clock.set('2024-01-01T05:10:00Z');
    const report = await ticker.tick();
    expect(report.skipped).toEqual([
      { key: 'hourly', count: 3, first: '2024-01-01T01:00:00Z', last: '2024-01-01T03:00:00Z' },
    ]);
    expect(runs.calls).toEqual(['hourly 2024-01-01T04:00:00Z', 'hourly 2024-01-01T05:00:00Z']);
    expect(await cursors.getCursor('hourly')).toBe('2024-01-01T05:00:00Z');
    await ticker.tick();
    expect(runs.calls).toHaveLength(2);
  });

  it('never fires skipped times later, even if firing crashed right after the skip', async () => {
    const clock = new FixedClock(Date.parse('2024-01-01T00:30:00Z'));
    const cursors = new InMemoryCursorStore();
    const fired: string[] = [];
    let down = false;
    const make = () =>
      new ScheduleTicker({
        clock,
        cursors,
        maxCatchUp: 1,
        schedules: [{ key: 'hourly', expression: 'cron(0 * * * ? *)' }],
        fire: async (key, time) => {
          if (down) throw new Error('crash');
          fired.push(`${key} ${time}`);
        },
      });
    await make().tick();
    clock.set('2024-01-01T03:30:00Z');
    down = true;
    await make().tick();
    down = false;
    clock.set('2024-01-01T03:40:00Z');
    await make().tick();
    expect(fired).toEqual(['hourly 2024-01-01T03:00:00Z']);
  });

  it('does not lose a time between the first sighting and the next tick', async () => {
    const { clock, cursors, runs, ticker } = setup([daily], '2024-01-01T08:59:30Z');
    await ticker.tick();
    expect(await cursors.getCursor('daily')).toBe('2024-01-01T08:59:30Z');
    clock.set('2024-01-01T09:00:30Z');
    await ticker.tick();
    expect(runs.calls).toEqual(['daily 2024-01-01T09:00:00Z']);
  });

  it('owes nothing from before the first sighting of a cron schedule', async () => {
    const { runs, ticker } = setup([daily], '2024-01-05T12:00:00Z');
    const report = await ticker.tick();
    expect([runs.calls, report.skipped]).toEqual([[], []]);
  });

  it('fires a rate schedule without start at once, then every interval from there', async () => {
    const { clock, runs, ticker } = setup(
      [{ key: 'r', expression: 'rate(15 minutes)' }],
      '2024-01-01T10:07:12Z',
    );
    await ticker.tick();
    for (const now of ['2024-01-01T10:20:00Z', '2024-01-01T10:22:12Z', '2024-01-01T10:40:00Z']) {
      clock.set(now);
      await ticker.tick();
    }
    expect(runs.calls).toEqual([
      'r 2024-01-01T10:07:12Z',
      'r 2024-01-01T10:22:12Z',
      'r 2024-01-01T10:37:12Z',
    ]);
  });

  it('fires a rate schedule with a start at start + k × interval, catching up from the start', async () => {
    const startMs = Date.parse('2024-01-01T10:00:00Z');
    const { runs, ticker } = setup(
      [{ key: 'r', expression: 'rate(1 hour)', startMs }],
      '2024-01-01T12:30:00Z',
    );
    await ticker.tick();
    expect(runs.calls).toEqual([
      'r 2024-01-01T10:00:00Z',
      'r 2024-01-01T11:00:00Z',
      'r 2024-01-01T12:00:00Z',
    ]);
  });

  it('waits for a start in the future', async () => {
    const startMs = Date.parse('2024-01-02T00:00:00Z');
    const { clock, runs, ticker } = setup(
      [{ key: 'r', expression: 'rate(1 day)', startMs }],
      '2024-01-01T12:00:00Z',
    );
    await ticker.tick();
    clock.set('2024-01-02T00:00:00Z');
    await ticker.tick();
    expect(runs.calls).toEqual(['r 2024-01-02T00:00:00Z']);
  });

  it('fires a one-time at() schedule once', async () => {
    const { clock, runs, ticker } = setup(
      [{ key: 'once', expression: 'at(2024-01-01T10:00:00)', timezone: 'Europe/Berlin' }],
      '2024-01-01T08:00:00Z',
    );
    for (const now of ['2024-01-01T08:30:00Z', '2024-01-01T09:00:00Z', '2024-01-02T09:00:00Z']) {
      clock.set(now);
      await ticker.tick();
    }
    expect(runs.calls).toEqual(['once 2024-01-01T09:00:00Z']);
  });

  it.each([
    [
      'America/New_York',
      '2024-03-08T12:00:00Z',
      ['2024-03-09T07:30:00Z', '2024-03-11T06:30:00Z', '2024-03-12T06:30:00Z'],
    ],
    [
      'Europe/Berlin',
      '2024-03-29T12:00:00Z',
      ['2024-03-30T01:30:00Z', '2024-04-01T00:30:00Z', '2024-04-02T00:30:00Z'],
    ],
  ])(
    'ticking every 10 minutes across spring forward in %s skips the missing 02:30 like EventBridge Scheduler',
    async (timezone, from, expected) => {
      const { clock, runs, ticker } = setup(
        [{ key: 'nightly', expression: 'cron(30 2 * * ? *)', timezone }],
        from,
      );
      for (let now = Date.parse(from); now <= Date.parse(from) + 4 * 86_400_000; now += 600_000) {
        clock.set(new Date(now).toISOString());
        await ticker.tick();
      }
      expect(runs.calls).toEqual(expected.map((time) => `nightly ${time}`));
    },
  );

  it('ticking every 10 minutes across fall back fires a 01:30 schedule once', async () => {
    const { clock, runs, ticker } = setup(
      [{ key: 'n', expression: 'cron(30 1 * * ? *)', timezone: 'America/New_York' }],
      '2024-11-02T12:00:00Z',
    );
    for (
      let now = Date.parse('2024-11-02T12:00:00Z');
      now <= Date.parse('2024-11-04T12:00:00Z');
      now += 600_000
    ) {
      clock.set(new Date(now).toISOString());
      await ticker.tick();
    }
    expect(runs.calls).toEqual(['n 2024-11-03T05:30:00Z', 'n 2024-11-04T06:30:00Z']);
  });

  it('serialises overlapping tick() calls so nothing fires twice', async () => {
    const clock = new FixedClock(Date.parse('2024-01-01T08:00:00Z'));
    const cursors = new InMemoryCursorStore();
    const fired: string[] = [];
    const ticker = new ScheduleTicker({
      clock,
      cursors,
      schedules: [daily],
      fire: async (key, time) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        fired.push(`${key} ${time}`);
      },
    });
    await ticker.tick();
    clock.set('2024-01-01T09:00:01Z');
    await Promise.all([ticker.tick(), ticker.tick(), ticker.tick()]);
    expect(fired).toEqual(['daily 2024-01-01T09:00:00Z']);
  });

  it('reports a corrupt cursor and goes on with the other schedules', async () => {
    const cursors = new InMemoryCursorStore();
    await cursors.setCursor('daily', 'not a time');
    const { runs, ticker } = setup(
      [daily, { key: 'r', expression: 'rate(1 hour)' }],
      '2024-01-01T09:00:00Z',
      { cursors },
    );
    const report = await ticker.tick();
    expect(report.failed).toEqual([{ key: 'daily', error: expect.any(ScheduleTickerError) }]);
    expect(runs.calls).toEqual(['r 2024-01-01T09:00:00Z']);
  });

  it.each([
    [[{ key: 'x', expression: 'cron(0 9 * * *)' }], 'schedule x is invalid', 'cron needs 6 fields'],
    [
      [{ key: 'x', expression: 'rate(5 minutes)', timezone: 'Nowhere/Town' }],
      'schedule x is invalid',
      'unknown time zone',
    ],
    [[daily, daily], 'duplicate schedule key daily', 'duplicate'],
  ])('refuses invalid configuration: %#', (schedules, message, detail) => {
    const build = () => setup(schedules, '2024-01-01T00:00:00Z');
    expect(build).toThrowError(ScheduleTickerError);
    expect(build).toThrowError(message);
    expect(build).toThrowError(detail);
  });

  it('refuses a maxCatchUp below 1', () => {
    expect(() => setup([daily], '2024-01-01T00:00:00Z', { maxCatchUp: 0 })).toThrowError(
      'maxCatchUp must be a whole number ≥ 1',
    );
  });
});
