/**
 * The local event bus (shared/api/routes/local-events.ts: `POST /v1/events` and `POST /local/events` in the local
 * stack) through a replacement: an event whose run never started (its StartExecution refused: the run left
 * `pending`), the pending-runs sweep ending that run `failed` (`ExecutionNotStarted`), and the same event id
 * delivered again starting a new run in its place (shared/runs/start-run.ts), whose trigger names the ended run
 * and to which the ended run links (`replacedBy`). The table is this file's own: the sweep reads every pending
 * run of its hours.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sweepPendingRuns } from '../../shared/runs/pending-sweep.ts';
import { ExecutionNotStartedError } from '../../shared/runs/ports.ts';
import { apiHarness, definition, ownTableName } from './helpers.ts';

const h = apiHarness({ tableName: await ownTableName() });
const MINUTE = 60_000;

/**
 * An event-triggered workflow; the event put on the bus (POST /v1/events) while every StartExecution is refused,
 * so its run stays pending (a retry of the event id would start it); eleven minutes on, the sweep finds no
 * execution of it and ends it `failed` (`ExecutionNotStarted`).
 */
async function endedUnstartedEvent() {
  const source = `com.test.${randomUUID()}`;
  const created = await h.alice.post(
    '/v1/workflows',
    definition({ trigger: { type: 'event', pattern: { source: [source] } } }),
  );
  expect(created.status).toBe(201);
  const workflowId = created.body.workflow.workflowId as string;
  const start = h.executions.start.bind(h.executions);
  h.executions.start = async (name) => {
    throw new ExecutionNotStartedError(name, { cause: new Error('refused') });
  };
  const put = await h.alice.post('/v1/events', {
    Entries: [{ Source: source, DetailType: 'Order Placed', Detail: '{"total": 250}' }],
  });
  h.executions.start = start;
  const pending = (await h.alice.get(`/v1/runs?workflowId=${workflowId}&status=pending`)).body.items;
  expect(pending).toHaveLength(1);
  const { runId: endedId, input: event } = pending[0] as {
    runId: string;
    input: { id: string; detail: Record<string, unknown> };
  };
  expect(event.detail).toMatchObject({ total: 250 });
  // What starts it again is the event delivered again with its id, not a request with an Idempotency-Key.
  expect(put.status).toBe(503);
  expect(put.headers.get('retry-after')).toBe('5');
  expect(put.body.error).toMatchObject({ code: 'run_start_pending' });
  expect(put.body.error.message).toContain(`run ${endedId} was created for event ${event.id}`);
  expect(put.body.error.message).toContain('POST /local/events');
  expect(put.body.error.message).not.toContain('Idempotency-Key');
  h.clock.advance(11 * MINUTE);
  const swept = await sweepPendingRuns({
    store: h.store,
    // Only this run's execution does not exist (the file's other runs stay pending: nothing runs them here).
    executions: {
      arnOf: h.executions.arnOf.bind(h.executions),
      exists: async (arn) => arn !== h.executions.arnOf('agent', endedId),
    },
    clock: h.clock,
  });
  expect(swept.settled).toEqual([endedId]);
  const starts = h.executions.starts.length;
  return { workflowId, endedId, event, starts };
}

describe('the local event bus: an event whose run ended unstarted, delivered again', () => {
  it('starts a new run that names the ended run, and the ended run links to it', async () => {
    // Prepare
    const { workflowId, endedId, event, starts } = await endedUnstartedEvent();

    // Act: the same event (as the bus delivered it: its id, its time) delivered again, as a redrive delivers it;
    // `/local/events` takes an envelope whole (`/v1/events` gives every entry a new id).
    const again = await h.alice.post('/local/events', event);

    // Assess: a new run, started; its trigger names the ended run, which links to it.
    expect(again.status).toBe(200);
    expect(again.body.runs).toEqual([
      { eventId: event.id, workflowId, runId: expect.any(String), created: true },
    ]);
    const replacementId = again.body.runs[0].runId as string;
    expect(replacementId).not.toBe(endedId);
    expect(h.executions.starts.slice(starts).map((started) => started.name)).toEqual([replacementId]);
    const replacement = (await h.alice.get(`/v1/runs/${replacementId}`)).body.run;
    expect(replacement.trigger).toMatchObject({ eventId: event.id, replacesRunId: endedId });
    const ended = (await h.alice.get(`/v1/runs/${endedId}`)).body.run;
    expect(ended).toMatchObject({
      status: 'failed',
      error: { name: 'ExecutionNotStarted' },
      replacedBy: replacementId,
    });
    // Delivered a third time: answered the new run, no third run; the new run, still pending here, started again
    // by its own name as any retry starts it (the same execution: StartExecution is idempotent by name).
    const third = await h.alice.post('/local/events', event);
    expect(third.body.runs).toEqual([
      { eventId: event.id, workflowId, runId: replacementId, created: false },
    ]);
    expect(h.executions.starts.slice(starts).map((started) => started.name)).toEqual([
      replacementId,
      replacementId,
    ]);
    expect((await h.alice.get(`/v1/runs?workflowId=${workflowId}`)).body.items).toHaveLength(2);
  });
});

/** The event's id with the first delivery's content but no `time`, which the bus then defaults anew. */
const sameIdTimeDefaulted = (event: { id: string }) => ({
  id: event.id,
  source: (event as unknown as { source: string }).source,
  'detail-type': 'Order Placed',
  detail: { total: 250 },
});

describe('the local event bus: the same event id with its time defaulted anew', () => {
  it('is the same event: a new run in place of the ended one, with the event as first delivered', async () => {
    // Prepare
    const { workflowId, endedId, event, starts } = await endedUnstartedEvent();
    h.clock.advance(MINUTE);

    // Act: the event id again, its time left to the bus (so later than the first delivery's).
    const again = await h.alice.post('/local/events', sameIdTimeDefaulted(event));

    // Assess: the new run runs the event as the bus first delivered it (what a redrive on AWS delivers).
    expect(again.body.runs).toEqual([
      { eventId: event.id, workflowId, runId: expect.any(String), created: true },
    ]);
    const replacementId = again.body.runs[0].runId as string;
    expect(replacementId).not.toBe(endedId);
    expect(h.executions.starts.slice(starts).map((started) => started.name)).toEqual([replacementId]);
    const replacement = (await h.alice.get(`/v1/runs/${replacementId}`)).body.run;
    expect(replacement).toMatchObject({ trigger: { replacesRunId: endedId }, input: event });
    expect((await h.alice.get(`/v1/runs/${endedId}`)).body.run).toMatchObject({ replacedBy: replacementId });
    // Once more, its time defaulted again: answered the new run (it did not end unstarted), no third run.
    h.clock.advance(MINUTE);
    const third = await h.alice.post('/local/events', sameIdTimeDefaulted(event));
    expect(third.body.runs).toEqual([
      { eventId: event.id, workflowId, runId: replacementId, created: false },
    ]);
    expect((await h.alice.get(`/v1/runs?workflowId=${workflowId}`)).body.items).toHaveLength(2);
  });
});

describe('the local event bus: one start refused among several events', () => {
  it('delivers every event of the request, then answers run_start_pending for the refused one', async () => {
    // Prepare: an event-triggered workflow; the first StartExecution of the request is refused, the rest start.
    const source = `com.test.${randomUUID()}`;
    const created = await h.alice.post(
      '/v1/workflows',
      definition({ trigger: { type: 'event', pattern: { source: [source] } } }),
    );
    const workflowId = created.body.workflow.workflowId as string;
    const start = h.executions.start.bind(h.executions);
    let refused = false;
    h.executions.start = async (name, ...rest) => {
      if (refused) return start(name, ...rest);
      refused = true;
      throw new ExecutionNotStartedError(name, { cause: new Error('refused') });
    };

    // Act: three events in one request.
    const put = await h.alice.post('/v1/events', {
      Entries: [1, 2, 3].map((n) => ({ Source: source, DetailType: 'Order Placed', Detail: `{"n": ${n}}` })),
    });
    h.executions.start = start;

    // Assess: the answer names the refused run (the first event's); all three runs were created, and the other
    // two events' executions started (runs stay pending here: nothing runs their first turn).
    expect(put.status).toBe(503);
    expect(put.body.error).toMatchObject({ code: 'run_start_pending' });
    const runs = (await h.alice.get(`/v1/runs?workflowId=${workflowId}`)).body.items as {
      runId: string;
      input: { detail: { n: number } };
    }[];
    const byN = new Map(runs.map((run) => [run.input.detail.n, run.runId]));
    expect([...byN.keys()].sort()).toEqual([1, 2, 3]);
    expect(put.body.error.message).toContain(`run ${byN.get(1)} was created`);
    const started = h.executions.starts.map((execution) => execution.name);
    expect(started).not.toContain(byN.get(1));
    expect(started).toContain(byN.get(2));
    expect(started).toContain(byN.get(3));
  });
});
