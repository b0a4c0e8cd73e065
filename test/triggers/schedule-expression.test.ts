import { TimeZone } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import {
  nextFireTimes,
  parseScheduleExpression,
  validateScheduleExpression,
} from '../../shared/triggers/index.ts';

describe('validateScheduleExpression', () => {
  it.each([
    // Examples of the EventBridge "Cron expressions reference" and Scheduler "Schedule types" pages.
    'cron(0 10 * * ? *)',
    'cron(15 12 * * ? *)',
    'cron(0 18 ? * MON-FRI *)',
    'cron(0 8 1 * ? *)',
    'cron(0/15 * * * ? *)',
    'cron(0/10 * ? * MON-FRI *)',
    'cron(0/5 8-17 ? * MON-FRI *)',
    'cron(0 9 ? * 2#1 *)',
    'cron(15 10 ? * 6L 2022-2023)',
    'cron(0 12 * * ? 2030/2)',
    'cron(0 0 L * ? *)',
    'cron(0 0 LW * ? *)',
    'cron(0 0 3W * ? *)',
    'cron(0 0 ? * L *)',
    'cron(0 0 ? jan,Jul mon *)',
    'cron(5,35 14 * * ? *)',
    'rate(1 minute)',
    'rate(5 minutes)',
    'rate(1 hour)',
    'rate(12 hours)',
    'rate(1 day)',
    'rate(7 days)',
    'at(2025-06-01T09:00:00)',
  ])('accepts %s', (expression) => {
    expect(validateScheduleExpression(expression, 'Europe/Berlin')).toEqual({ ok: true });
  });

  it.each([
    ['cron(0 9 * * *)', 'cron needs 6 fields (minutes hours day-of-month month day-of-week year), got 5'],
    ['cron()', 'cron needs 6 fields (minutes hours day-of-month month day-of-week year), got 0'],
    ['0 9 * * *', 'wrap cron fields in cron(...) and give 6 fields'],
    ['every day', "expected cron(...), rate(...) or at(...), got 'every day'"],
    ['cron(0 9 * * MON *)', 'one of day-of-month and day-of-week must be ?'],
    ['cron(0 9 1 * * *)', 'one of day-of-month and day-of-week must be ?'],
    ['cron(0 9 ? * ? *)', 'day-of-month and day-of-week cannot both be ?'],
    ['cron(? 9 * * ? *)', 'minutes: ? is only allowed in day-of-month and day-of-week'],
    ['cron(60 9 * * ? *)', 'minutes: 60 is out of range 0-59'],
    ['cron(0 24 * * ? *)', 'hours: 24 is out of range 0-23'],
    ['cron(0 9 0 * ? *)', 'day-of-month: 0 is out of range 1-31'],
    ['cron(0 9 * 13 ? *)', 'month: 13 is out of range 1-12'],
    ['cron(0 9 * FOO ? *)', "month: 'FOO' is not a value; use 1-12 or JAN-DEC"],
    ['cron(0 9 ? * 0 *)', 'day-of-week: 0 is out of range 1-7'],
    ['cron(0 9 ? * MON/2 *)', "day-of-week: '/' increments are not supported"],
    ['cron(0 9 ? * 3#1,6#3 *)', "day-of-week: '3#1,6#3': '#' and 'L' allow only one expression"],
    ['cron(0 9 ? * 2-6L *)', "'#' and 'L' allow only one expression"],
    ['cron(0 9 ? * 3#6 *)', "day-of-week: '3#6': the occurrence after '#' must be 1-5"],
    ['cron(0 9 L-3 * ? *)', "day-of-month: 'L-3' is not supported"],
    ['cron(0 9 1,L * ? *)', "day-of-month: '1,L' is not supported"],
    ['cron(0 9 32W * ? *)', 'day-of-month: 32 is out of range 1-31'],
    ['cron(0 9 * * ? 1969)', 'year: 1969 is out of range 1970-2199'],
    ['cron(0 9 * * ? 2200)', 'year: 2200 is out of range 1970-2199'],
    ['cron(0 9 20-10 * ? *)', "day-of-month: the range '20-10' runs backwards"],
    ['cron(*/0 9 * * ? *)', "minutes: the increment in '*/0' must be a positive whole number"],
    ['cron(1/2/3 9 * * ? *)', "minutes: '1/2/3' has more than one '/'"],
    ['cron(1-2-3 9 * * ? *)', "minutes: '1-2-3' is not a range such as 1-5"],
    ['rate(1 minutes)', 'use the singular unit for 1: rate(1 minute)'],
    ['rate(5 hour)', 'use the plural unit for 5: rate(5 hours)'],
    ['rate(0 minutes)', "the rate value must be a positive whole number, got '0'"],
    ['rate(1.5 hours)', "the rate value must be a positive whole number, got '1.5'"],
    ['rate(2 weeks)', "the rate unit must be minute(s), hour(s) or day(s), got 'weeks'"],
    ['rate(5)', 'rate needs a value and a unit'],
    ['at(2025-06-01 09:00:00)', 'at() needs yyyy-mm-ddThh:mm:ss'],
    ['at(2024-02-30T09:00:00)', "'2024-02-30T09:00:00' is not a real date and time"],
    ['at(2024-01-01T24:00:00)', 'is not a real date and time'],
  ])('refuses %s', (expression, message) => {
    const result = validateScheduleExpression(expression, 'UTC');
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors).toContainEqual({
      field: 'expression',
      message: expect.stringContaining(message),
    });
  });

  it('reports every problem of a cron expression at once', () => {
    const result = validateScheduleExpression('cron(60 24 * * ? *)', 'UTC');
    expect(result.ok ? [] : result.errors.map((error) => error.message)).toEqual([
      'minutes: 60 is out of range 0-59',
      'hours: 24 is out of range 0-23',
    ]);
  });

  it.each([
    ['+01:00', 'is a UTC offset'],
    ['UTC+1', 'is a UTC offset'],
    ['Mars/Olympus', 'unknown time zone "Mars/Olympus"'],
    ['', 'the time zone is empty'],
    ['europe/berlin', 'write the time zone as IANA spells it, "Europe/Berlin"'],
    ['utc', 'write the time zone as IANA spells it, "UTC"'],
    // Links resolve to another zone, so their spelling is judged against the list of links.
    ['etc/utc', 'write the time zone as IANA spells it, "Etc/UTC"'],
    ['us/pacific', 'write the time zone as IANA spells it, "US/Pacific"'],
    ['US/PACIFIC', 'write the time zone as IANA spells it, "US/Pacific"'],
    ['ETC/UTC', 'write the time zone as IANA spells it, "Etc/UTC"'],
    ['Etc/Utc', 'write the time zone as IANA spells it, "Etc/UTC"'],
    ['est5edt', 'write the time zone as IANA spells it, "EST5EDT"'],
    ['asia/kolkata', 'write the time zone as IANA spells it, "Asia/Kolkata"'],
  ])('refuses the time zone %j', (timezone, message) => {
    const result = validateScheduleExpression('rate(5 minutes)', timezone);
    expect(result.ok ? [] : result.errors).toEqual([
      { field: 'timezone', message: expect.stringContaining(message) },
    ]);
  });

  it.each([
    'UTC',
    'Europe/Berlin',
    'America/New_York',
    'Etc/GMT-1',
    'Asia/Kolkata',
    'Europe/Kyiv',
    'US/Pacific',
    'Etc/UTC',
    'EST5EDT',
    'America/Port-au-Prince',
    'Africa/Dar_es_Salaam',
  ])('accepts the time zone %s', (timezone) => {
    expect(validateScheduleExpression('rate(5 minutes)', timezone)).toEqual({ ok: true });
  });

  it("accepts every time zone CDK's TimeZone offers for EventBridge Scheduler", () => {
    const names = Object.values(TimeZone)
      .filter((value): value is TimeZone => value instanceof TimeZone)
      .map((zone) => zone.timezoneName);
    expect(names.length).toBeGreaterThan(300);
    const refused = names.filter((name) => validateScheduleExpression('rate(5 minutes)', name).ok !== true);
    // `Factory` is tzdata's placeholder for "no zone yet" (offset "-00"), which ICU does not know: refusing it
    // is right for a schedule.
    expect(refused).toEqual(['Factory']);
  });

  it('reports expression and time zone problems together', () => {
    const result = validateScheduleExpression('rate(5 minute)', 'Nowhere/Town');
    expect(result.ok ? [] : result.errors.map((error) => error.field)).toEqual(['timezone', 'expression']);
  });

  it('defaults the time zone to UTC', () => {
    const parsed = parseScheduleExpression('rate(2 hours)');
    expect(parsed.ok && parsed.schedule).toEqual({
      expression: 'rate(2 hours)',
      timezone: 'UTC',
      kind: 'rate',
      value: 2,
      unit: 'hour',
      intervalMs: 7_200_000,
    });
  });

  it('converts AWS cron to the croner pattern it evaluates', () => {
    const parsed = parseScheduleExpression('cron(0/15 8-17 ? * MON-FRI 2025/2)');
    expect(parsed.ok && parsed.schedule.kind === 'cron' && parsed.schedule.cronerPattern).toBe(
      '0 0-59/15 8-17 * * 2-6 2025-2199/2',
    );
  });
});

describe('AWS strictness about spaces and year steps', () => {
  it.each([
    [' rate(10 minutes)', 'before or after'],
    ['rate(10 minutes) ', 'before or after'],
    ['rate( 10 minutes )', 'inside the parentheses'],
    ['rate( 10 minutes)', 'inside the parentheses'],
    ['cron( 0 9 * * ? *)', 'inside the parentheses'],
    ['rate(10  minutes)', 'rate needs a value and a unit'],
    ['rate(10\tminutes)', 'rate needs a value and a unit'],
  ])('refuses %j as AWS does, saying why', (expression, message) => {
    // Act
    const result = validateScheduleExpression(expression);

    // Assess
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).toContain(message);
  });

  it('counts a year step */n from 1970, as AWS does', () => {
    // Act: 1970 + 7k hits 2026 and 2033 (counting from year 0 would give 2030)
    const times = nextFireTimes('cron(0 0 1 1 ? */7)', 'UTC', new Date('2026-02-01T00:00:00Z'), 2);

    // Assess
    expect(times.map((time) => time.toISOString())).toEqual([
      '2033-01-01T00:00:00.000Z',
      '2040-01-01T00:00:00.000Z',
    ]);
  });
});
