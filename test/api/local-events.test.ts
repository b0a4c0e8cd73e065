import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiHarness, definition } from './helpers.ts';

const h = apiHarness();

/** An event-triggered workflow on a source no other test uses (the trigger index spans all owners). */
async function eventWorkflow(client = h.alice) {
  const source = `com.test.${randomUUID()}`;
  const created = await client.post(
    '/v1/workflows',
    definition({
      trigger: {
        type: 'event',
        pattern: {
          source: [source],
          'detail-type': ['Order Placed'],
          detail: { total: [{ numeric: ['>', 100] }] },
        },
      },
    }),
  );
  expect(created.status).toBe(201);
  return { source, workflowId: created.body.workflow.workflowId as string };
}

describe('POST /local/events', () => {
  it('starts one run for an event delivered twice (same id)', async () => {
    const { source, workflowId } = await eventWorkflow();
    const event = {
      id: `evt-${randomUUID()}`,
      source,
      'detail-type': 'Order Placed',
      detail: { total: 250 },
    };
    const first = await h.alice.post('/local/events', event);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ FailedEntryCount: 0, Entries: [{ EventId: event.id }] });
    expect(first.body.runs).toEqual([
      { eventId: event.id, workflowId, runId: expect.any(String), created: true },
    ]);
    const starts = h.executions.starts.length;
    h.clock.advance(5_000); // a redelivery later: the defaulted time differs, the id does not
    const second = await h.alice.post('/local/events', event);
    expect(second.body.runs).toEqual([
      { eventId: event.id, workflowId, runId: first.body.runs[0].runId, created: false },
    ]);
    expect(h.executions.starts.length).toBe(starts);

    const run = (await h.alice.get(`/v1/runs/${first.body.runs[0].runId}`)).body.run;
    expect(run.trigger).toEqual({ type: 'event', eventId: event.id, source, detailType: 'Order Placed' });
    expect(run.input).toMatchObject({
      id: event.id,
      source,
      detail: { total: 250 },
      account: '000000000000',
      region: 'local',
    });
  });

  it('starts nothing for an event that does not match', async () => {
    const { source } = await eventWorkflow();
    const starts = h.executions.starts.length;
    for (const event of [
      { source, 'detail-type': 'Order Placed', detail: { total: 50 } },
      { source, 'detail-type': 'Order Cancelled', detail: { total: 500 } },
      { source: `${source}.other`, 'detail-type': 'Order Placed', detail: { total: 500 } },
    ]) {
      const reply = await h.alice.post('/local/events', event);
      expect(reply.status).toBe(200);
      expect(reply.body.runs).toEqual([]);
    }
    expect(h.executions.starts.length).toBe(starts);
  });

  it('accepts a PutEvents body: each entry is a new event with a generated id', async () => {
    const { source, workflowId } = await eventWorkflow();
    const entry = { Source: source, DetailType: 'Order Placed', Detail: JSON.stringify({ total: 101 }) };
    const reply = await h.alice.post('/local/events', {
      Entries: [entry, entry, { ...entry, Detail: '{"total": 1}' }],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.FailedEntryCount).toBe(0);
    const ids = reply.body.Entries.map((e: { EventId: string }) => e.EventId);
    expect(new Set(ids).size).toBe(3);
    expect(reply.body.runs).toEqual([
      { eventId: ids[0], workflowId, runId: expect.any(String), created: true },
      { eventId: ids[1], workflowId, runId: expect.any(String), created: true },
    ]);
  });

  it('matches only the caller’s own workflows, and none that are disabled', async () => {
    const { source, workflowId: alices } = await eventWorkflow(h.alice);
    const bobs = await h.bob.post(
      '/v1/workflows',
      definition({ trigger: { type: 'event', pattern: { source: [source] } } }),
    );
    const disabled = await eventWorkflow(h.alice);
    await h.alice.post(`/v1/workflows/${disabled.workflowId}/disable`);
    const reply = await h.alice.post('/local/events', {
      source,
      'detail-type': 'Order Placed',
      detail: { total: 999 },
    });
    expect(reply.body.runs.map((run: { workflowId: string }) => run.workflowId)).toEqual([alices]);
    const fromBob = await h.bob.post('/local/events', {
      source,
      'detail-type': 'Order Placed',
      detail: { total: 999 },
    });
    expect(fromBob.body.runs.map((run: { workflowId: string }) => run.workflowId)).toEqual([
      bobs.body.workflow.workflowId,
    ]);
    const off = await h.alice.post('/local/events', {
      source: disabled.source,
      'detail-type': 'Order Placed',
      detail: { total: 999 },
    });
    expect(off.body.runs).toEqual([]);
  });

  it.each([
    [
      'a Detail that is not a JSON object',
      { Entries: [{ Source: 'a.b', DetailType: 't', Detail: '[1]' }] },
      'Entries[0].Detail',
    ],
    [
      'a reserved aws. source',
      { Entries: [{ Source: 'aws.ec2', DetailType: 't', Detail: '{}' }] },
      'Entries[0].Source',
    ],
    [
      'eleven entries',
      { Entries: Array.from({ length: 11 }, () => ({ Source: 'a', DetailType: 't', Detail: '{}' })) },
      'Entries',
    ],
    ['an envelope without detail', { source: 'a', 'detail-type': 't' }, 'detail'],
    [
      'an envelope with a bad time',
      { source: 'a', 'detail-type': 't', detail: {}, time: 'yesterday' },
      'time',
    ],
  ])('answers %s with 400 naming %s', async (_label, body, path) => {
    const reply = await h.alice.post('/local/events', body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields.map((field: { path: string }) => field.path)).toContain(path);
  });

  it('starts nothing when one entry of several is invalid', async () => {
    const { source } = await eventWorkflow();
    const starts = h.executions.starts.length;
    const good = { Source: source, DetailType: 'Order Placed', Detail: '{"total": 500}' };
    const reply = await h.alice.post('/local/events', { Entries: [good, { ...good, Detail: 'nope' }] });
    expect(reply.status).toBe(400);
    expect(h.executions.starts.length).toBe(starts);
  });
});
