import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PutEventsEntry } from '../../shared/triggers/index.ts';
import type { EventBus } from '../../shared/triggers-sync/event-bus.ts';
import { apiHarness, definition } from './helpers.ts';

const h = apiHarness();

/** Alice's event-triggered workflow on a source no other test uses. */
async function alicesWorkflow() {
  const source = `com.test.${randomUUID()}`;
  const created = await h.alice.post(
    '/v1/workflows',
    definition({
      trigger: { type: 'event', pattern: { source: [source], detail: { total: [{ exists: true }] } } },
    }),
  );
  expect(created.status).toBe(201);
  return { source, workflowId: created.body.workflow.workflowId as string };
}

const entry = (source: string, detail: Record<string, unknown> = { total: 1 }) => ({
  Source: source,
  DetailType: 'Order Placed',
  Detail: JSON.stringify(detail),
});

describe('Events are owner-fenced', () => {
  it.each(['/local/events', '/v1/events'])(
    'an event of another owner matching the pattern starts nothing of the workflow’s owner (%s)',
    async (path) => {
      const { source, workflowId } = await alicesWorkflow();
      const starts = h.executions.starts.length;
      const fromBob = await h.bob.post(path, { Entries: [entry(source)] });
      expect(fromBob.status).toBe(200);
      expect(fromBob.body.runs).toEqual([]);
      expect(h.executions.starts.length).toBe(starts);

      const fromAlice = await h.alice.post(path, { Entries: [entry(source)] });
      expect(fromAlice.body.runs).toEqual([
        { eventId: fromAlice.body.Entries[0].EventId, workflowId, runId: expect.any(String), created: true },
      ]);
      const run = (await h.alice.get(`/v1/runs/${fromAlice.body.runs[0].runId}`)).body.run;
      expect(run.input.detail).toEqual({ total: 1, 'wf-owner': h.owners.alice });
    },
  );

  it.each([
    [
      'a PutEvents entry',
      (owner: string, source: string) => ({ Entries: [entry(source, { total: 1, 'wf-owner': owner })] }),
      'Entries[0].Detail.wf-owner',
    ],
    [
      'an envelope',
      (owner: string, source: string) => ({
        source,
        'detail-type': 'Order Placed',
        detail: { total: 1, 'wf-owner': owner },
      }),
      'detail.wf-owner',
    ],
  ])('refuses %s whose body sets another owner’s stamp, starting nothing', async (_label, body, path) => {
    const { source } = await alicesWorkflow();
    const starts = h.executions.starts.length;
    const reply = await h.bob.post('/local/events', body(h.owners.alice, source));
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields.map((field: { path: string }) => field.path)).toEqual([path]);
    expect(h.executions.starts.length).toBe(starts);
  });

  it('accepts a body carrying the caller’s own stamp (a replayed event)', async () => {
    const { source, workflowId } = await alicesWorkflow();
    const reply = await h.alice.post('/v1/events', {
      Entries: [entry(source, { total: 1, 'wf-owner': h.owners.alice })],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.runs.map((run: { workflowId: string }) => run.workflowId)).toEqual([workflowId]);
  });
});

describe('Saving an event trigger', () => {
  it.each([
    [{ source: ['a'], detail: { 'wf-owner': ['someone'] } }, 'trigger.pattern.detail.wf-owner'],
    [
      { source: ['a'], $or: [{ detail: { 'wf-owner': ['x'] } }, { detail: { b: [1] } }] },
      'trigger.pattern.$or.0.detail.wf-owner',
    ],
    [
      { source: ['a'], detail: { $or: [{ 'wf-owner': [{ prefix: '' }] }, { b: [1] }] } },
      'trigger.pattern.detail.$or.0.wf-owner',
    ],
    [{ source: ['a'], detail: [{ exists: true }] }, 'trigger.pattern.detail'],
  ])('refuses a pattern that touches the owner stamp: %j', async (pattern, path) => {
    const reply = await h.alice.post('/v1/workflows', definition({ trigger: { type: 'event', pattern } }));
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields.map((field: { path: string }) => field.path)).toContain(path);
  });

  it('refuses a pattern that fits 2,048 characters alone but not with the owner stamp', async () => {
    const pattern = { source: [`com.test.${'x'.repeat(2048 - 40)}`] };
    expect(JSON.stringify(pattern).length).toBeLessThanOrEqual(2048);
    const reply = await h.alice.post('/v1/workflows', definition({ trigger: { type: 'event', pattern } }));
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields).toEqual([
      {
        path: 'trigger.pattern',
        message: expect.stringMatching(/with the owner stamp added; EventBridge accepts at most 2048/),
      },
    ]);
  });

  it('refuses a pattern over 2,048 characters as written, naming trigger.pattern', async () => {
    const pattern = { source: Array.from({ length: 300 }, (_, i) => `com.test.source-${i}`) };
    const reply = await h.alice.post('/v1/workflows', definition({ trigger: { type: 'event', pattern } }));
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields.map((field: { path: string }) => field.path)).toContain('trigger.pattern');
  });
});

describe('POST /v1/events on AWS', () => {
  const put: PutEventsEntry[][] = [];
  const bus: EventBus = {
    async put(entries) {
      put.push(entries);
      return { FailedEntryCount: 0, Entries: entries.map((_, i) => ({ EventId: `aws-${i}` })) };
    },
  };
  const aws = apiHarness({ local: false, eventBus: bus });

  it('puts each entry on the bus stamped with the caller’s owner, whatever bus the body named', async () => {
    const reply = await aws.bob.post('/v1/events', {
      Entries: [{ ...entry('com.example.orders'), EventBusName: 'someone-elses-bus' }],
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ FailedEntryCount: 0, Entries: [{ EventId: 'aws-0' }] });
    expect(put.at(-1)).toEqual([
      {
        Source: 'com.example.orders',
        DetailType: 'Order Placed',
        Detail: JSON.stringify({ total: 1, 'wf-owner': aws.owners.bob }),
      },
    ]);
  });

  it('puts nothing when a body sets another owner’s stamp', async () => {
    const before = put.length;
    const reply = await aws.bob.post('/v1/events', {
      Entries: [entry('com.example.orders'), entry('com.example.orders', { 'wf-owner': aws.owners.alice })],
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields[0].path).toBe('Entries[1].Detail.wf-owner');
    expect(put.length).toBe(before);
  });

  it('needs authentication', async () => {
    const reply = await aws.anonymous.post('/v1/events', { Entries: [entry('com.example.orders')] });
    expect(reply.status).toBe(401);
  });

  it('answers 501 where no bus is configured', async () => {
    const bare = apiHarness({ local: false });
    const reply = await bare.alice.post('/v1/events', { Entries: [entry('com.example.orders')] });
    expect(reply.status).toBe(501);
  });
});
