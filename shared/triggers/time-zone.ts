/**
 * IANA time zone arithmetic with `Intl` only: the wall clock of an instant, and the instants of a wall clock
 * time (none inside a spring-forward gap, two inside a fall-back overlap). "Wall times" are represented as the
 * epoch milliseconds of the same calendar fields read as UTC.
 */

import { aliasSpelling } from './time-zone-aliases.ts';

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/**
 * Why a time zone is unusable, or undefined when it is a valid IANA name. UTC offsets such as "+01:00" are
 * refused even though `Intl` accepts them, because EventBridge Scheduler takes IANA names only.
 */
export function timeZoneProblem(timeZone: string): string | undefined {
  if (timeZone.trim() === '') return 'the time zone is empty; use an IANA name such as Europe/Berlin';
  if (/^[+\-\u2212\d]/.test(timeZone) || /^(UTC|GMT)[+-]/i.test(timeZone)) {
    return `${JSON.stringify(timeZone)} is a UTC offset; use an IANA time zone name such as Europe/Berlin or Etc/GMT-1`;
  }
  try {
    // `Intl` matches names regardless of case; EventBridge Scheduler is handed the name as written, and IANA
    // names are case-sensitive elsewhere (java.time, tzdata files), so only the IANA spelling is taken.
    const spelled = formatter(timeZone).resolvedOptions().timeZone;
    if (spelled === timeZone) return undefined;
    // A link (`US/Pacific`, `Etc/UTC`) resolves to another zone, so its spelling is judged against the list of
    // links as IANA spells them (time-zone-aliases.ts).
    const alias = aliasSpelling(timeZone);
    if (alias === timeZone) return undefined;
    const iana = alias ?? (spelled.toLowerCase() === timeZone.toLowerCase() ? spelled : undefined);
    if (iana !== undefined) {
      return `${JSON.stringify(timeZone)}: write the time zone as IANA spells it, ${JSON.stringify(iana)}`;
    }
    // A name ICU knows that is neither IANA's current name nor a link this runtime lists: Scheduler may not know it.
    return `${JSON.stringify(timeZone)} is not an IANA time zone name this runtime knows; write ${JSON.stringify(spelled)}`;
  } catch {
    return `unknown time zone ${JSON.stringify(timeZone)}; use an IANA name such as America/New_York`;
  }
}

/** The wall clock time of an instant in a time zone, as UTC-read epoch milliseconds. */
export function wallClockMs(instantMs: number, timeZone: string): number {
  const fields: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(instantMs))) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  const wholeSecondMs = Date.UTC(
    fields.year ?? 1970,
    (fields.month ?? 1) - 1,
    fields.day ?? 1,
    fields.hour ?? 0,
    fields.minute ?? 0,
    fields.second ?? 0,
  );
  return wholeSecondMs + (((instantMs % 1000) + 1000) % 1000);
}

/** The offset from UTC of a time zone at an instant, in milliseconds (positive east of Greenwich). */
export function utcOffsetMs(instantMs: number, timeZone: string): number {
  return wallClockMs(instantMs, timeZone) - instantMs;
}

/**
 * The instants at which the time zone's clock shows a wall time, ascending: none in a spring-forward gap, two in
 * a fall-back overlap. Offsets are probed a day either side, which covers every real transition.
 */
export function instantsOfWallTime(wallMs: number, timeZone: string): number[] {
  const offsets = new Set([
    utcOffsetMs(wallMs - DAY_MS, timeZone),
    utcOffsetMs(wallMs, timeZone),
    utcOffsetMs(wallMs + DAY_MS, timeZone),
  ]);
  const instants = new Set<number>();
  for (const offset of offsets) {
    const candidate = wallMs - offset;
    if (wallClockMs(candidate, timeZone) === wallMs) instants.add(candidate);
  }
  return [...instants].sort((a, b) => a - b);
}

/**
 * One instant for a wall time, the way `java.time` resolves local times: the earlier instant in an overlap, and
 * in a gap the wall time pushed forward by the length of the gap (02:30 in a 02:00→03:00 gap becomes 03:30).
 */
export function resolveWallTime(wallMs: number, timeZone: string): number {
  return instantsOfWallTime(wallMs, timeZone)[0] ?? wallMs - utcOffsetMs(wallMs - DAY_MS, timeZone);
}
