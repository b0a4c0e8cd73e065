/**
 * Parsing and validation of EventBridge Scheduler expressions: `cron(...)`, `rate(value unit)` and
 * `at(yyyy-mm-ddThh:mm:ss)`, each evaluated in an IANA time zone (UTC by default).
 */
import { awsCronToCroner } from './schedule-cron.ts';
import { timeZoneProblem } from './time-zone.ts';

/** A problem with a schedule; `field` says which input it is about. */
export type ScheduleIssue = { field: 'expression' | 'timezone'; message: string };

type Common = { expression: string; timezone: string };

/** A valid schedule, ready for {@link fireTimesAfter}. */
export type ParsedSchedule =
  | (Common & { kind: 'cron'; cronerPattern: string })
  | (Common & { kind: 'rate'; value: number; unit: 'minute' | 'hour' | 'day'; intervalMs: number })
  | (Common & { kind: 'at'; wallMs: number });

/** A parsed schedule, or every problem found. */
export type ScheduleParse = { ok: true; schedule: ParsedSchedule } | { ok: false; errors: ScheduleIssue[] };

const UNIT_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

function parseRate(
  inner: string,
): { ok: true; value: number; unit: keyof typeof UNIT_MS } | { ok: false; message: string } {
  // AWS refuses any space but the one between value and unit: `rate( 10 minutes )`, `rate(10  minutes)`.
  const pieces = inner.split(' ');
  const [valueText = '', unitText = ''] = pieces;
  if (pieces.length !== 2 || valueText === '' || unitText === '' || /\s/.test(inner.replace(' ', '')))
    return { ok: false, message: 'rate needs a value and a unit, e.g. rate(5 minutes) or rate(1 hour)' };
  if (!/^[1-9]\d*$/.test(valueText)) {
    return { ok: false, message: `the rate value must be a positive whole number, got '${valueText}'` };
  }
  const value = Number(valueText);
  const singular = unitText.endsWith('s') ? unitText.slice(0, -1) : unitText;
  if (!(singular in UNIT_MS)) {
    return { ok: false, message: `the rate unit must be minute(s), hour(s) or day(s), got '${unitText}'` };
  }
  const unit = singular as keyof typeof UNIT_MS;
  if (value === 1 && unitText !== unit)
    return { ok: false, message: `use the singular unit for 1: rate(1 ${unit})` };
  if (value > 1 && unitText === unit)
    return { ok: false, message: `use the plural unit for ${value}: rate(${value} ${unit}s)` };
  return { ok: true, value, unit };
}

function parseAt(inner: string): { ok: true; wallMs: number } | { ok: false; message: string } {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(inner);
  if (match === null) {
    return {
      ok: false,
      message: `at() needs yyyy-mm-ddThh:mm:ss, e.g. at(2025-06-01T09:00:00); got '${inner}'`,
    };
  }
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const wallMs = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(wallMs);
  const roundTrips =
    check.getUTCFullYear() === year &&
    check.getUTCMonth() === month - 1 &&
    check.getUTCDate() === day &&
    check.getUTCHours() === hour &&
    check.getUTCMinutes() === minute;
  if (!roundTrips || second > 59) return { ok: false, message: `'${inner}' is not a real date and time` };
  return { ok: true, wallMs };
}

/** Parses a schedule expression and time zone, collecting every problem. */
export function parseScheduleExpression(expression: string, timezone = 'UTC'): ScheduleParse {
  const errors: ScheduleIssue[] = [];
  const zoneProblem = timeZoneProblem(timezone);
  if (zoneProblem !== undefined) errors.push({ field: 'timezone', message: zoneProblem });
  const addError = (message: string) => errors.push({ field: 'expression', message });
  const common: Common = { expression, timezone };
  // Exactly the expression AWS accepts: no space before or after it, none just inside the parentheses.
  const call = /^(cron|rate|at)\((\S(?:.*\S)?)?\)$/s.exec(expression);
  let schedule: ParsedSchedule | undefined;
  const padded = /^(cron|rate|at)\((.*)\)$/s.exec(expression.trim());
  if (call === null && (expression !== expression.trim() || padded !== null)) {
    addError(
      expression !== expression.trim()
        ? `remove the spaces before or after the expression: AWS refuses '${expression}'`
        : `remove the spaces just inside the parentheses: AWS refuses '${expression}'`,
    );
  } else if (call === null) {
    const looksLikeUnixCron = /^[\d*?,/\-A-Za-z#]+(\s+[\d*?,/\-A-Za-z#]+){4,5}$/.test(expression.trim());
    addError(
      looksLikeUnixCron
        ? `wrap cron fields in cron(...) and give 6 fields, e.g. cron(0 9 * * ? *); got '${expression}'`
        : `expected cron(...), rate(...) or at(...), got '${expression}'`,
    );
  } else {
    const [, kind, inner = ''] = call;
    if (kind === 'cron') {
      const converted = awsCronToCroner(inner);
      if (converted.ok) schedule = { ...common, kind: 'cron', cronerPattern: converted.pattern };
      else for (const message of converted.messages) addError(message);
    } else if (kind === 'rate') {
      const rate = parseRate(inner);
      if (rate.ok)
        schedule = {
          ...common,
          kind: 'rate',
          value: rate.value,
          unit: rate.unit,
          intervalMs: rate.value * UNIT_MS[rate.unit],
        };
      else addError(rate.message);
    } else {
      const at = parseAt(inner);
      if (at.ok) schedule = { ...common, kind: 'at', wallMs: at.wallMs };
      else addError(at.message);
    }
  }
  if (errors.length > 0 || schedule === undefined) return { ok: false, errors };
  return { ok: true, schedule };
}

/** Validates a schedule expression and time zone: `{ ok: true }` or every problem with a readable message. */
export function validateScheduleExpression(
  expression: string,
  timezone = 'UTC',
): { ok: true } | { ok: false; errors: ScheduleIssue[] } {
  const parsed = parseScheduleExpression(expression, timezone);
  return parsed.ok ? { ok: true } : parsed;
}
