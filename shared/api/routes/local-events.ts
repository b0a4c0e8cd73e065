/**
 * The local event bus. `POST /local/events` accepts a PutEvents body or one event envelope; `POST /v1/events`
 * (see events.ts) a PutEvents body. Each event is stamped with the caller's owner and matched, with EventBridge
 * pattern semantics, against every enabled event-triggered workflow's pattern AND that workflow's owner stamp —
 * what the rules on AWS do — so an event only ever starts runs of its own owner's workflows. One run per
 * (workflow, event id): a redelivered event id starts nothing new, but for a new run in place of one that ended
 * without ever starting (shared/runs/start-run.ts).
 */
import { Hono } from 'hono';
import { idempotencyFor, startRun, WorkflowNotRunnableError } from '../../runs/index.ts';
import { RunStartPendingError } from '../../runs/ports.ts';
import type { TriggerProvenance } from '../../schemas/run.ts';
import { IdempotencyConflictError } from '../../store/index.ts';
import {
  compileEventPattern,
  type EventEnvelope,
  type EventMatcher,
  type EventPattern,
  ownerStampedPattern,
} from '../../triggers/index.ts';
import { readJsonBody } from '../body.ts';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { ownedLocalEvents } from './event-intake.ts';

/** A run an event started (or had already started). */
export type StartedRun = { eventId: string; workflowId: string; runId: string; created: boolean };

async function matchers(deps: ApiDeps) {
  const compiled: { owner: string; workflowId: string; matches: EventMatcher }[] = [];
  for (const entry of await deps.store.listTriggerIndex('event')) {
    if (entry.trigger.type !== 'event') continue;
    try {
      const pattern = ownerStampedPattern(entry.trigger.pattern as EventPattern, entry.owner);
      compiled.push({ ...entry, matches: compileEventPattern(pattern) });
    } catch {
      // An index entry whose pattern no longer validates matches nothing (as AWS would have refused the rule).
    }
  }
  return compiled;
}

/**
 * Starts a run of every enabled workflow whose owner-stamped pattern an event matches. A start left pending does
 * not stop the others: every event is delivered, then the first such start is the answer (eventStartPending).
 */
export async function deliverLocally(deps: ApiDeps, events: EventEnvelope[]): Promise<StartedRun[]> {
  const workflows = await matchers(deps);
  const runs: StartedRun[] = [];
  let pending: ApiError | undefined;
  for (const event of events) {
    for (const { owner, workflowId, matches } of workflows) {
      if (!matches(event)) continue;
      try {
        const started = await deliverTo(deps, event, owner, workflowId);
        if (started) runs.push(started);
      } catch (error) {
        if (!(error instanceof RunStartPendingError)) throw error;
        pending ??= eventStartPending(error, event.id);
      }
    }
  }
  if (pending) throw pending;
  return runs;
}

/** One event to one workflow: its run (created or found), or undefined when the workflow cannot run. */
async function deliverTo(
  deps: ApiDeps,
  event: EventEnvelope,
  owner: string,
  workflowId: string,
): Promise<StartedRun | undefined> {
  const trigger: TriggerProvenance = {
    type: 'event',
    eventId: event.id,
    source: event.source,
    detailType: event['detail-type'],
  };
  const idempotency = idempotencyFor(trigger, workflowId);
  const start = (input: unknown) =>
    startRun(deps, {
      owner,
      workflowId,
      trigger,
      input,
      ...(idempotency ? { idempotency } : {}),
      actor: 'system',
    });
  try {
    const { run, created } = await start(event);
    return { eventId: event.id, workflowId, runId: run.runId, created };
  } catch (error) {
    // The same event id with other content (e.g. a defaulted time) is still the same event: no new run,
    // but in place of a run it started that ended without ever starting (sameEventAgain).
    if (error instanceof IdempotencyConflictError) {
      const { runId, created } = await sameEventAgain(deps, error.runId, start);
      return { eventId: event.id, workflowId, runId, created };
    }
    if (error instanceof WorkflowNotRunnableError) return undefined;
    throw error;
  }
}

/**
 * An event's run was created and its execution could not be started: the API's `run_start_pending` (as for a
 * keyed start), but what starts it again is the event delivered again with its id, not a request repeated
 * with an Idempotency-Key (`/v1/events` gives every entry a new id; `/local/events` keeps an envelope's).
 */
function eventStartPending(error: RunStartPendingError, eventId: string): ApiError {
  return new ApiError(
    503,
    'run_start_pending',
    `run ${error.runId} was created for event ${eventId} but its execution could not be started yet; deliver the event again with the same id (POST /local/events with its envelope, "id": "${eventId}") to start it; once the run has been pending 10 minutes it is ended failed (ExecutionNotStarted), and a delivery of that id then starts a new run in its place`,
    { headers: { 'Retry-After': '5' }, cause: error },
  );
}

/**
 * An event id delivered again with other content than its first delivery (a defaulted time) whose run, named by
 * its marker, ended without ever starting (`failed`, `ExecutionNotStarted`): started again with the first
 * delivery's content, its run's input (what a redrive delivers on AWS, where an event's content does not change),
 * so start-run finds that run by its marker and starts a new run in its place (shared/runs/start-run.ts). Any other
 * run is the answer, as it is to a repeat of the same content.
 */
async function sameEventAgain(
  deps: ApiDeps,
  runId: string,
  start: (input: unknown) => Promise<{ run: { runId: string }; created: boolean }>,
): Promise<{ runId: string; created: boolean }> {
  const named = await deps.store.getRun(runId);
  if (named?.status !== 'failed' || named.error?.name !== 'ExecutionNotStarted')
    return { runId, created: false };
  try {
    const { run, created } = await start(named.input);
    return { runId: run.runId, created };
  } catch (error) {
    if (error instanceof IdempotencyConflictError) return { runId: error.runId, created: false };
    throw error;
  }
}

function localEventRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post('/events', async (c) => {
    const events = ownedLocalEvents(deps, await readJsonBody(c), c.get('identity').owner);
    const runs = await deliverLocally(deps, events);
    return c.json({ FailedEntryCount: 0, Entries: events.map((event) => ({ EventId: event.id })), runs });
  });
  return app;
}

/** The local event bus as the API takes it (`ApiDeps.local.events`): the `/local` routes and the delivery. */
export type LocalEventBus = { routes: typeof localEventRoutes; deliver: typeof deliverLocally };
export const localEventBus: LocalEventBus = { routes: localEventRoutes, deliver: deliverLocally };
