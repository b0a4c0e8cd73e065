/**
 * The event intake shared by `POST /v1/events` and `POST /local/events`: validates a body as EventBridge would,
 * and stamps every event with the caller's owner (`detail["wf-owner"]`, from verified identity, never from the
 * body). A body that sets the stamp to anyone else is refused, naming the field; nothing is put or started.
 */

import { storableIssues } from '../../core/storable.ts';
import {
  type EventEnvelope,
  MAX_ENTRY_BYTES,
  normalizePutEventsEntry,
  type PutEventsEntry,
  putEventsEntrySize,
  stampDetail,
} from '../../triggers/index.ts';
import { validate } from '../body.ts';
import type { ApiDeps } from '../deps.ts';
import { invalid } from '../errors.ts';
import { LocalEventEnvelopeBodySchema, PutEventsBodySchema, RUN_INPUT_LIMITS } from '../schemas.ts';

/** Stamped PutEvents entries and the events EventBridge would deliver for them (ids from `deps.ids`). */
export type OwnedEvents = {
  entries: PutEventsEntry[];
  events: EventEnvelope[];
  at: (index: number) => string;
};

const eventTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function stamped(detail: Record<string, unknown>, owner: string, path: string): Record<string, unknown> {
  const result = stampDetail(detail, owner);
  if (!result.ok) throw invalid([{ path: `${path}.${result.issue.path}`, message: result.issue.message }]);
  return result.detail;
}

/** A PutEvents body, stamped: each entry's `Detail` gains the owner; any invalid entry fails the whole body. */
export function ownedPutEvents(deps: ApiDeps, body: unknown, owner: string): OwnedEvents {
  const { Entries } = validate(PutEventsBodySchema, body, 'invalid PutEvents request');
  const at = (index: number) => `Entries[${index}]`;
  const now = deps.clock.nowMs();
  const entries: PutEventsEntry[] = Entries.map((entry, index) => {
    // The schema has checked that Detail is a JSON object.
    const detail = stamped(JSON.parse(entry.Detail) as Record<string, unknown>, owner, `${at(index)}.Detail`);
    const { EventBusName: _ignored, ...rest } = entry;
    return { ...rest, Detail: JSON.stringify(detail) };
  });
  const total = entries.reduce((sum, entry) => sum + putEventsEntrySize(entry), 0);
  // Each entry within 256 KiB is not enough: EventBridge refuses the whole request (ValidationException, "Total
  // size of the entries in the request is over the limit") when the entries together pass it. "You can batch
  // multiple event entries into one request [...] The total entry size must be less than 256KB", each entry
  // counted as the page says (putEventsEntrySize, the stamp included):
  // https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html. The local bus takes any.
  if (entries.length > 1 && total > MAX_ENTRY_BYTES)
    throw invalid([
      {
        path: 'Entries',
        message: `the entries together are ${total} bytes; EventBridge accepts at most ${MAX_ENTRY_BYTES} (256 KiB) in one request: send them in several`,
      },
    ]);
  const events = entries.map((entry, index) => {
    // Normalized after stamping, so the size limit counts the stamp too.
    const result = normalizePutEventsEntry(entry, { now, id: () => deps.ids.next('evt') });
    if (result.ok) return result.event;
    throw invalid(
      result.errors.map((error) => ({
        path: `${at(index)}${error.path ? `.${error.path}` : ''}`,
        message: error.message,
      })),
    );
  });
  return { entries, events: checkedStorable(events, at), at };
}

/** One event envelope (the local bus also takes this form), stamped. */
function ownedEnvelope(deps: ApiDeps, body: unknown, owner: string): EventEnvelope[] {
  const event = validate(LocalEventEnvelopeBodySchema, body, 'invalid event');
  const detail = stamped(event.detail, owner, 'detail') as EventEnvelope['detail'];
  const envelope: EventEnvelope = {
    version: event.version ?? '0',
    id: event.id ?? deps.ids.next('evt'),
    'detail-type': event['detail-type'],
    source: event.source,
    account: event.account ?? '000000000000',
    time: event.time ?? eventTime(deps.clock.nowMs()),
    region: event.region ?? 'local',
    resources: event.resources ?? [],
    detail,
  };
  return checkedStorable([envelope], () => '(root)');
}

/** The events a `/local/events` body delivers: a PutEvents body or one envelope, stamped with `owner`. */
export function ownedLocalEvents(deps: ApiDeps, body: unknown, owner: string): EventEnvelope[] {
  if (body !== null && typeof body === 'object' && 'Entries' in body)
    return ownedPutEvents(deps, body, owner).events;
  return ownedEnvelope(deps, body, owner);
}

/** Each event becomes a run's input: it must be storable as such. */
function checkedStorable(events: EventEnvelope[], at: (index: number) => string): EventEnvelope[] {
  const problems = events.flatMap((event, index) =>
    storableIssues(event, RUN_INPUT_LIMITS).map((issue) => ({ path: at(index), message: issue.message })),
  );
  if (problems.length > 0) throw invalid(problems, 'an event cannot be stored as run input');
  return events;
}
