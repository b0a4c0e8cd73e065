/**
 * The EventBridge event envelope, and the conversion of a PutEvents request entry into it (what EventBridge does
 * when it accepts an entry): `Source` → `source`, `DetailType` → `detail-type`, `Detail` (a JSON object as a
 * string) → `detail`, `Resources` → `resources`, `Time` (default: now) → `time`, plus id, account and region.
 */
import { createHash } from 'node:crypto';
import * as z from '../zod.ts';
import type { TriggerIssue } from './errors.ts';

/** Seconds-precision UTC timestamp, the form EventBridge writes in `time`, e.g. `2017-12-22T18:43:48Z`. */
const EventTimeSchema = z
  .string()
  .check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/, 'expected a UTC timestamp'));

/** Zod schema of an EventBridge event as delivered to rules and targets. */
export const EventEnvelopeSchema = z.object({
  version: z.string(),
  id: z.string().check(z.minLength(1)),
  'detail-type': z.string().check(z.minLength(1)),
  source: z.string().check(z.minLength(1)),
  account: z.string(),
  time: EventTimeSchema,
  region: z.string(),
  resources: z.array(z.string()),
  detail: z.record(z.string(), z.json()),
});

/** An EventBridge event: the envelope fields plus `detail`. */
export type EventEnvelope = z.infer<typeof EventEnvelopeSchema>;

/** A PutEvents request entry; structurally compatible with `PutEventsRequestEntry` of the AWS SDK. */
export type PutEventsEntry = {
  Source?: string | undefined;
  DetailType?: string | undefined;
  Detail?: string | undefined;
  Resources?: string[] | undefined;
  Time?: Date | string | number | undefined;
  EventBusName?: string | undefined;
  TraceHeader?: string | undefined;
};

/** What EventBridge adds to an entry: receive time, id, account and region. */
export type NormalizeOptions = {
  /** Receive time, used for `time` when the entry has none. */
  now: Date | number;
  /** The event id, or a generator of ids. Without it the id is derived from the entry and time (deterministic). */
  id?: string | (() => string);
  /** Default `000000000000`, the local stack's account. */
  account?: string;
  /** Default `local`. */
  region?: string;
};

/** The delivered event, or the reasons EventBridge would refuse the entry. */
export type NormalizeResult = { ok: true; event: EventEnvelope } | { ok: false; errors: TriggerIssue[] };

/** EventBridge refuses PutEvents entries larger than 256 KiB, counted as in "Calculating PutEvents event entry size". */
export const MAX_ENTRY_BYTES = 256 * 1024;

/** Entry size as EventBridge counts it: 14 bytes for Time, UTF-8 bytes of Source, DetailType, Detail, Resources. */
export function putEventsEntrySize(entry: PutEventsEntry): number {
  const bytes = (text: string | undefined) => (text === undefined ? 0 : Buffer.byteLength(text, 'utf8'));
  let size = entry.Time === undefined ? 0 : 14;
  size += bytes(entry.Source) + bytes(entry.DetailType) + bytes(entry.Detail);
  for (const resource of entry.Resources ?? []) size += bytes(resource);
  return size;
}

const toEventTime = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

function derivedId(entry: PutEventsEntry, time: string): string {
  const hex = createHash('sha256')
    .update(JSON.stringify([entry.Source, entry.DetailType, entry.Detail, entry.Resources ?? [], time]))
    .digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function parseDetail(
  detail: string | undefined,
  errors: TriggerIssue[],
): Record<string, z.core.util.JSONType> {
  if (detail === undefined) {
    errors.push({ path: 'Detail', message: 'Detail is required: a JSON object as a string, e.g. "{}"' });
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(detail);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return parsed as Record<string, z.core.util.JSONType>;
    }
  } catch {
    // reported below
  }
  errors.push({
    path: 'Detail',
    message: 'Detail must be a JSON object as a string, e.g. "{\\"orderId\\": 42}"',
  });
  return {};
}

/** Turns a PutEvents entry into the event EventBridge would deliver, or says why EventBridge would refuse it. */
export function normalizePutEventsEntry(entry: PutEventsEntry, options: NormalizeOptions): NormalizeResult {
  const errors: TriggerIssue[] = [];
  const source = entry.Source ?? '';
  const detailType = entry.DetailType ?? '';
  if (source === '')
    errors.push({ path: 'Source', message: 'Source is required, e.g. "com.example.orders"' });
  else if (source.startsWith('aws.')) {
    errors.push({ path: 'Source', message: 'sources starting with "aws." are reserved for AWS services' });
  }
  if (detailType === '')
    errors.push({ path: 'DetailType', message: 'DetailType is required, e.g. "Order Placed"' });
  const detail = parseDetail(entry.Detail, errors);
  const resources = entry.Resources ?? [];
  if (!resources.every((resource) => typeof resource === 'string')) {
    errors.push({ path: 'Resources', message: 'Resources must be a list of strings (ARNs)' });
  }
  const time = new Date(entry.Time ?? options.now);
  if (Number.isNaN(time.getTime())) errors.push({ path: 'Time', message: 'Time is not a valid date' });
  const size = putEventsEntrySize(entry);
  if (size > MAX_ENTRY_BYTES) {
    errors.push({
      path: '',
      message: `the entry is ${size} bytes; EventBridge accepts at most ${MAX_ENTRY_BYTES} (256 KiB)`,
    });
  }
  if (errors.length > 0) return { ok: false, errors };
  const eventTime = toEventTime(time);
  const id = typeof options.id === 'function' ? options.id() : (options.id ?? derivedId(entry, eventTime));
  return {
    ok: true,
    event: {
      version: '0',
      id,
      'detail-type': detailType,
      source,
      account: options.account ?? '000000000000',
      time: eventTime,
      region: options.region ?? 'local',
      resources,
      detail,
    },
  };
}
