import { describe, expect, it } from 'vitest';
import { nextFireTimes, ScheduleExpressionError } from '../../shared/triggers/index.ts';

const iso = (dates: Date[]) => dates.map((date) => date.toISOString().replace('.000Z', 'Z'));
const next = (expression: string, timezone: string, after: string, count: number, startMs?: number) =>
  iso(nextFireTimes(expression, timezone, new Date(after), count, startMs === undefined ? {} : { startMs }));

describe('nextFireTimes for cron in UTC (examples of the cron expressions reference)', () => {
  it.each([
    ['cron(15 12 * * ? *)', '2024-01-01T12:15:00Z', ['2024-01-02T12:15:00Z', '2024-01-03T12:15:00Z']],
    ['cron(0/10 * ? * MON-FRI *)', '2024-01-05T23:55:00Z', ['2024-01-08T00:00:00Z', '2024-01-08T00:10:00Z']],
    [
      'cron(0/5 8-17 ? * MON-FRI *)',
      '2024-01-08T17:55:00Z',
      ['2024-01-09T08:00:00Z', '2024-01-09T08:05:00Z'],
    ],
    ['cron(5,35 14 * * ? *)', '2024-01-01T14:05:00Z', ['2024-01-01T14:35:00Z', '2024-01-02T14:05:00Z']],
    ['cron(0 12 1 JAN,JUL ? *)', '2024-01-01T12:00:00Z', ['2024-07-01T12:00:00Z', '2025-01-01T12:00:00Z']],
    ['cron(0 0 LW * ? *)', '2024-03-01T00:00:00Z', ['2024-03-29T00:00:00Z', '2024-04-30T00:00:00Z']],
    ['cron(0 0 ? * L *)', '2024-01-01T00:00:00Z', ['2024-01-06T00:00:00Z', '2024-01-13T00:00:00Z']],
    ['cron(0 0 ? * 1 *)', '2024-01-01T00:00:00Z', ['2024-01-07T00:00:00Z', '2024-01-14T00:00:00Z']],
  ])('%s after %s', (expression, after, expected) => {
    expect(next(expression, 'UTC', after, expected.length)).toEqual(expected);
  });

  it('stops when the year field runs out', () => {
    expect(next('cron(0 0 1 1 ? 2025)', 'UTC', '2024-06-01T00:00:00Z', 3)).toEqual(['2025-01-01T00:00:00Z']);
  });

  it('treats `after` as exclusive', () => {
    expect(next('cron(0 10 * * ? *)', 'UTC', '2024-01-01T10:00:00Z', 1)).toEqual(['2024-01-02T10:00:00Z']);
  });

  it('returns nothing for a count of 0', () => {
    expect(nextFireTimes('cron(0 10 * * ? *)', 'UTC', new Date(0), 0)).toEqual([]);
  });

  it('throws a ScheduleExpressionError naming the problem', () => {
    expect(() => nextFireTimes('cron(0 9 * * *)', 'UTC', new Date(0), 1)).toThrowError(
      ScheduleExpressionError,
    );
    expect(() => nextFireTimes('rate(5 minutes)', 'Nowhere/Town', new Date(0), 1)).toThrowError(
      /timezone: unknown time zone/,
    );
  });
});

describe('nextFireTimes across daylight saving time changes', () => {
  it('skips a daily 02:30 on the spring-forward day in America/New_York (02:00 → 03:00 on 10 March 2024)', () => {
    expect(next('cron(30 2 * * ? *)', 'America/New_York', '2024-03-08T12:00:00Z', 3)).toEqual([
      '2024-03-09T07:30:00Z', // 02:30 EST
      '2024-03-11T06:30:00Z', // 02:30 EDT; nothing on the 10th
      '2024-03-12T06:30:00Z',
    ]);
  });

  it('skips a daily 02:30 on the spring-forward day in Europe/Berlin (02:00 → 03:00 on 31 March 2024)', () => {
    expect(next('cron(30 2 * * ? *)', 'Europe/Berlin', '2024-03-29T12:00:00Z', 2)).toEqual([
      '2024-03-30T01:30:00Z', // 02:30 CET
      '2024-04-01T00:30:00Z', // 02:30 CEST
    ]);
  });

  it('keeps a daily 03:30 on the spring-forward day at the new offset', () => {
    expect(next('cron(30 3 * * ? *)', 'Europe/Berlin', '2024-03-30T12:00:00Z', 1)).toEqual([
      '2024-03-31T01:30:00Z',
    ]);
  });

  it('skips the times of an interval schedule that fall into the gap', () => {
    expect(next('cron(*/30 * * * ? *)', 'Europe/Berlin', '2024-03-31T00:10:00Z', 3)).toEqual([
      '2024-03-31T00:30:00Z', // 01:30 CET
      '2024-03-31T01:00:00Z', // 03:00 CEST; 02:00 and 02:30 do not exist
      '2024-03-31T01:30:00Z',
    ]);
  });

  it('fires a daily 01:30 once on the fall-back day in America/New_York (01:00-02:00 repeats on 3 November 2024)', () => {
    expect(next('cron(30 1 * * ? *)', 'America/New_York', '2024-11-02T12:00:00Z', 2)).toEqual([
      '2024-11-03T05:30:00Z', // 01:30 EDT, the first occurrence
      '2024-11-04T06:30:00Z',
    ]);
  });

  it('does not repeat hourly times during the repeated hour', () => {
    expect(next('cron(0 * * * ? *)', 'America/New_York', '2024-11-03T03:30:00Z', 3)).toEqual([
      '2024-11-03T04:00:00Z', // 00:00 EDT
      '2024-11-03T05:00:00Z', // 01:00 EDT; 01:00 EST at 06:00Z is not repeated
      '2024-11-03T07:00:00Z', // 02:00 EST
    ]);
  });

  it('does not fire the first occurrence again when asked from inside the repeated hour', () => {
    expect(next('cron(30 1 * * ? *)', 'America/New_York', '2024-11-03T06:10:00Z', 1)).toEqual([
      '2024-11-04T06:30:00Z',
    ]);
  });

  it('fires a Europe/Berlin fall-back 02:30 once (03:00 → 02:00 on 27 October 2024)', () => {
    expect(next('cron(30 2 * * ? *)', 'Europe/Berlin', '2024-10-26T12:00:00Z', 2)).toEqual([
      '2024-10-27T00:30:00Z', // 02:30 CEST
      '2024-10-28T01:30:00Z', // 02:30 CET
    ]);
  });
});

describe('nextFireTimes for rate and at', () => {
  it('fires a rate at start + k × interval', () => {
    const start = Date.parse('2024-01-01T00:02:00Z');
    expect(next('rate(10 minutes)', 'UTC', '2024-01-01T00:30:00Z', 2, start)).toEqual([
      '2024-01-01T00:32:00Z',
      '2024-01-01T00:42:00Z',
    ]);
  });

  it('includes the start itself when it is after `after`', () => {
    const start = Date.parse('2024-01-01T06:00:00Z');
    expect(next('rate(1 hour)', 'UTC', '2024-01-01T00:00:00Z', 2, start)).toEqual([
      '2024-01-01T06:00:00Z',
      '2024-01-01T07:00:00Z',
    ]);
  });

  it('counts a rate day as 24 hours across a DST change, whatever the time zone', () => {
    const start = Date.parse('2024-03-09T17:00:00Z'); // 12:00 EST
    expect(next('rate(1 day)', 'America/New_York', '2024-03-09T17:00:00Z', 2, start)).toEqual([
      '2024-03-10T17:00:00Z', // 13:00 EDT
      '2024-03-11T17:00:00Z',
    ]);
  });

  it('fires at() once, in its time zone', () => {
    expect(next('at(2025-06-01T09:00:00)', 'Asia/Kolkata', '2024-01-01T00:00:00Z', 3)).toEqual([
      '2025-06-01T03:30:00Z',
    ]);
    expect(next('at(2025-06-01T09:00:00)', 'Asia/Kolkata', '2025-06-01T03:30:00Z', 3)).toEqual([]);
  });

  it('pushes an at() time inside a gap forward by the gap, and takes the first occurrence in an overlap', () => {
    expect(next('at(2024-03-10T02:30:00)', 'America/New_York', '2024-01-01T00:00:00Z', 1)).toEqual([
      '2024-03-10T07:30:00Z',
    ]);
    expect(next('at(2024-11-03T01:30:00)', 'America/New_York', '2024-01-01T00:00:00Z', 1)).toEqual([
      '2024-11-03T05:30:00Z',
    ]);
  });
});
