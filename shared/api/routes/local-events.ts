/**
 * `POST /local/events` (local stack only): the local event bus. Accepts a PutEvents body or one event
 * envelope, matches each event against every enabled event-triggered workflow (all owners, as rules on the
 * custom bus do) with EventBridge pattern semantics, and starts one run per (workflow, event id): a
 * redelivered event id starts nothing new.
 */
import { Hono } from 'hono';
import { idempotencyFor, startRun, WorkflowNotRunnableError } from '../../runs/index.ts';
import type { TriggerProvenance } from '../../schemas/run.ts';
import { IdempotencyConflictError } from '../../store/index.ts';
import {
  compileEventPattern,
  type EventEnvelope,
  type EventMatcher,
  normalizePutEventsEntry,
} from '../../triggers/index.ts';
import { readJsonBody, validate } from '../body.ts';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { invalid } from '../errors.ts';
import { LocalEventEnvelopeBodySchema, PutEventsBodySchema, RUN_INPUT_LIMITS } from '../schemas.ts';
import { storableIssues } from '../storable.ts';

const eventTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The events a body delivers, as EventBridge would deliver them; any invalid entry fails the whole request. */
function deliveredEvents(deps: ApiDeps, body: unknown): EventEnvelope[] {
  const now = deps.clock.nowMs();
  const nextId = () => deps.ids.next('evt');
  let events: EventEnvelope[];
  let at: (index: number) => string;
  if (body !== null && typeof body === 'object' && 'Entries' in body) {
    const { Entries } = validate(PutEventsBodySchema, body, 'invalid PutEvents request');
    at = (index) => `Entries[${index}]`;
    events = Entries.map((entry, index) => {
      const result = normalizePutEventsEntry(entry, { now, id: nextId });
      if (!result.ok) {
        throw invalid(
          result.errors.map((error) => ({
            path: `${at(index)}${error.path ? `.${error.path}` : ''}`,
            message: error.message,
          })),
        );
      }
      return result.event;
    });
  } else {
    const event = validate(LocalEventEnvelopeBodySchema, body, 'invalid event');
    at = () => '(root)';
    events = [
      {
        version: event.version ?? '0',
        id: event.id ?? nextId(),
        'detail-type': event['detail-type'],
        source: event.source,
        account: event.account ?? '000000000000',
        time: event.time ?? eventTime(now),
        region: event.region ?? 'local',
        resources: event.resources ?? [],
        detail: event.detail as EventEnvelope['detail'],
      },
    ];
  }
  // The event becomes the run's input: it must be storable as such.
  const problems = events.flatMap((event, index) =>
    storableIssues(event, RUN_INPUT_LIMITS).map((issue) => ({ path: at(index), message: issue.message })),
  );
  if (problems.length > 0) throw invalid(problems, 'an event cannot be stored as run input');
  return events;
}

type StartedRun = { eventId: string; workflowId: string; runId: string; created: boolean };

export function localEventRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post('/events', async (c) => {
    const events = deliveredEvents(deps, await readJsonBody(c));
    const matchers: { owner: string; workflowId: string; matches: EventMatcher }[] = [];
    for (const entry of await deps.store.listTriggerIndex('event')) {
      if (entry.trigger.type !== 'event') continue;
      try {
        matchers.push({ ...entry, matches: compileEventPattern(entry.trigger.pattern) });
      } catch {
        // An index entry whose pattern no longer validates matches nothing (as AWS would have refused the rule).
      }
    }
    const runs: StartedRun[] = [];
    for (const event of events) {
      for (const { owner, workflowId, matches } of matchers) {
        if (!matches(event)) continue;
        const trigger: TriggerProvenance = {
          type: 'event',
          eventId: event.id,
          source: event.source,
          detailType: event['detail-type'],
        };
        const idempotency = idempotencyFor(trigger, workflowId);
        try {
          const { run, created } = await startRun(deps, {
            owner,
            workflowId,
            trigger,
            input: event,
            ...(idempotency ? { idempotency } : {}),
            actor: 'system',
          });
          runs.push({ eventId: event.id, workflowId, runId: run.runId, created });
        } catch (error) {
          // The same event id with other content (e.g. a defaulted time) is still the same event: no new run.
          if (error instanceof IdempotencyConflictError) {
            runs.push({ eventId: event.id, workflowId, runId: error.runId, created: false });
          } else if (!(error instanceof WorkflowNotRunnableError)) {
            throw error;
          }
        }
      }
    }
    return c.json({ FailedEntryCount: 0, Entries: events.map((event) => ({ EventId: event.id })), runs });
  });
  return app;
}
