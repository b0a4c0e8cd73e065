/**
 * AWS cron fields → a croner pattern. AWS: `cron(minutes hours day-of-month month day-of-week year)`, day-of-week
 * 1-7 = SUN-SAT, exactly one of day-of-month / day-of-week is `?`. Croner gets `0 m h dom mon dow year` in
 * 7-part mode with Quartz weekday numbering and AND-combined day fields (one of which is then `*`).
 */
import { Cron, type CronOptions } from 'croner';

type FieldSpec = {
  label: string;
  min: number;
  max: number;
  names?: readonly string[];
  steps: boolean;
};

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

const MINUTES: FieldSpec = { label: 'minutes', min: 0, max: 59, steps: true };
const HOURS: FieldSpec = { label: 'hours', min: 0, max: 23, steps: true };
const DAY_OF_MONTH: FieldSpec = { label: 'day-of-month', min: 1, max: 31, steps: true };
const MONTH: FieldSpec = { label: 'month', min: 1, max: 12, names: MONTHS, steps: true };
const DAY_OF_WEEK: FieldSpec = { label: 'day-of-week', min: 1, max: 7, names: WEEKDAYS, steps: false };
const YEAR: FieldSpec = { label: 'year', min: 1970, max: 2199, steps: true };

/** Croner options that make it a plain wall-clock calendar; time zones are applied by the caller. */
export const CRONER_OPTIONS: CronOptions = {
  timezone: 'UTC',
  mode: '7-part',
  alternativeWeekdays: true,
  domAndDow: true,
};

type FieldResult = { ok: true; value: string } | { ok: false; message: string };

function fail(spec: FieldSpec, message: string): FieldResult {
  return { ok: false, message: `${spec.label}: ${message}` };
}

function parseValue(spec: FieldSpec, text: string): number | string {
  const index = spec.names?.indexOf(text.toUpperCase() as never) ?? -1;
  if (index >= 0) return spec.min + index;
  if (!/^\d+$/.test(text)) {
    const names = spec.names === undefined ? '' : ` or ${spec.names[0]}-${spec.names[spec.names.length - 1]}`;
    return `'${text}' is not a value; use ${spec.min}-${spec.max}${names}`;
  }
  const value = Number(text);
  return value < spec.min || value > spec.max ? `${value} is out of range ${spec.min}-${spec.max}` : value;
}

function parseItem(spec: FieldSpec, item: string): FieldResult {
  if (item === '?') return fail(spec, '? is only allowed in day-of-month and day-of-week');
  const [rangeText = '', stepText, ...rest] = item.split('/');
  if (rest.length > 0) return fail(spec, `'${item}' has more than one '/'`);
  let step = '';
  if (stepText !== undefined) {
    if (!spec.steps) return fail(spec, `'/' increments are not supported in ${spec.label}`);
    if (!/^\d+$/.test(stepText) || Number(stepText) < 1)
      return fail(spec, `the increment in '${item}' must be a positive whole number`);
    step = `/${Number(stepText)}`;
  }
  // AWS counts `*/n` from the field's first value (years from 1970: */7 is 1970, 1977, …, 2026, 2033); croner
  // would count years from 0, so the range is written out.
  if (rangeText === '*') return { ok: true, value: step === '' ? '*' : `${spec.min}-${spec.max}${step}` };
  const [lowText = '', highText, ...more] = rangeText.split('-');
  if (more.length > 0) return fail(spec, `'${item}' is not a range such as 1-5`);
  const low = parseValue(spec, lowText);
  if (typeof low === 'string') return fail(spec, low);
  if (highText === undefined) {
    // AWS reads `a/n` as "from a, every n" (e.g. 1/10 in minutes = 1, 11, 21, ...); croner wants a-max/n.
    return { ok: true, value: step === '' ? `${low}` : `${low}-${spec.max}${step}` };
  }
  const high = parseValue(spec, highText);
  if (typeof high === 'string') return fail(spec, high);
  if (low > high)
    return fail(
      spec,
      `the range '${rangeText}' runs backwards; write it low-high, splitting it with ',' if it wraps`,
    );
  return { ok: true, value: `${low}-${high}${step}` };
}

function parseList(spec: FieldSpec, text: string): FieldResult {
  const values: string[] = [];
  for (const item of text.split(',')) {
    const result = parseItem(spec, item);
    if (!result.ok) return result;
    values.push(result.value);
  }
  return { ok: true, value: values.join(',') };
}

function parseDayOfMonth(text: string): FieldResult {
  if (text === 'L' || text === 'LW') return { ok: true, value: text };
  const weekday = /^(\d+)W$/.exec(text);
  if (weekday !== null) {
    const day = parseValue(DAY_OF_MONTH, weekday[1] ?? '');
    return typeof day === 'string' ? fail(DAY_OF_MONTH, day) : { ok: true, value: `${day}W` };
  }
  if (/[LW]/i.test(text)) {
    return fail(
      DAY_OF_MONTH,
      `'${text}' is not supported; L (last day), LW (last weekday) and nW (weekday nearest day n) stand alone`,
    );
  }
  return parseList(DAY_OF_MONTH, text);
}

function parseDayOfWeek(text: string): FieldResult {
  const special = /^([A-Za-z]{3}|\d+)(L|#\d+)$/.exec(text);
  if (special !== null) {
    const day = parseValue(DAY_OF_WEEK, special[1] ?? '');
    if (typeof day === 'string') return fail(DAY_OF_WEEK, day);
    const suffix = special[2] ?? '';
    if (suffix === 'L') return { ok: true, value: `${day}#L` };
    const nth = Number(suffix.slice(1));
    if (nth < 1 || nth > 5) return fail(DAY_OF_WEEK, `'${text}': the occurrence after '#' must be 1-5`);
    return { ok: true, value: `${day}#${nth}` };
  }
  // Quartz semantics: a lone L in day-of-week is the last day of the week, Saturday.
  if (text === 'L') return { ok: true, value: '7' };
  // No weekday name contains an L, so any '#' or 'L' left here is a list or range around one.
  if (/[#L]/i.test(text)) {
    return fail(
      DAY_OF_WEEK,
      `'${text}': '#' and 'L' allow only one expression, such as 3#2 or 6L (AWS refuses lists like 3#1,6#3)`,
    );
  }
  return parseList(DAY_OF_WEEK, text);
}

/** Converts the inside of `cron(...)` to a croner pattern, or lists what AWS would refuse. */
export function awsCronToCroner(
  inner: string,
): { ok: true; pattern: string } | { ok: false; messages: string[] } {
  const fields = inner.trim().split(/\s+/);
  if (fields.length !== 6) {
    return {
      ok: false,
      messages: [
        `cron needs 6 fields (minutes hours day-of-month month day-of-week year), got ${inner.trim() === '' ? 0 : fields.length}; for every day at 09:00 write cron(0 9 * * ? *)`,
      ],
    };
  }
  const [minutes = '', hours = '', dayOfMonth = '', month = '', dayOfWeek = '', year = ''] = fields;
  const messages: string[] = [];
  const domAny = dayOfMonth === '?';
  const dowAny = dayOfWeek === '?';
  if (domAny === dowAny) {
    messages.push(
      domAny
        ? 'day-of-month and day-of-week cannot both be ?; set one of them, e.g. cron(0 9 * * ? *)'
        : 'one of day-of-month and day-of-week must be ?, e.g. cron(0 9 ? * MON-FRI *) or cron(0 9 1 * ? *)',
    );
  }
  const results = [
    parseList(MINUTES, minutes),
    parseList(HOURS, hours),
    domAny ? ({ ok: true, value: '*' } as const) : parseDayOfMonth(dayOfMonth),
    parseList(MONTH, month),
    dowAny ? ({ ok: true, value: '*' } as const) : parseDayOfWeek(dayOfWeek),
    parseList(YEAR, year),
  ];
  for (const result of results) if (!result.ok) messages.push(result.message);
  if (messages.length > 0) return { ok: false, messages };
  const pattern = `0 ${results.map((result) => (result.ok ? result.value : '')).join(' ')}`;
  try {
    new Cron(pattern, CRONER_OPTIONS);
  } catch (error) {
    return {
      ok: false,
      messages: [`cron(${inner.trim()}) cannot be evaluated locally: ${(error as Error).message}`],
    };
  }
  return { ok: true, pattern };
}
