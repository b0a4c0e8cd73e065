/**
 * Owner fencing through the API when field names carry dots (EventBridge reads a dot as nesting): saving a
 * pattern that reaches the stamp by a dotted spelling is refused, an event whose detail has keys inside the
 * stamp is refused, and dotted patterns stay fenced by owner on the local bus.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { apiHarness, definition } from './helpers.ts';

const h = apiHarness();

const entry = (source: string, detail: Record<string, unknown>) => ({
  Source: source,
  DetailType: 'Order Placed',
  Detail: JSON.stringify(detail),
});

describe('Saving an event trigger whose pattern reaches the stamp through dots', () => {
  it.each([
    [{ source: ['a'], 'detail.wf-owner': ['someone'] }, 'trigger.pattern.detail.wf-owner'],
    [{ source: ['a'], detail: { 'wf-owner.x': ['someone'] } }, 'trigger.pattern.detail.wf-owner.x'],
    [
      { source: ['a'], detail: { b: [1] }, 'detail.wf-owner': ['someone'] },
      'trigger.pattern.detail.wf-owner',
    ],
    [
      { source: ['a'], $or: [{ 'detail.wf-owner': [{ exists: false }] }, { b: [1] }] },
      'trigger.pattern.$or.0.detail.wf-owner',
    ],
  ])('refuses %j', async (pattern, path) => {
    const reply = await h.alice.post('/v1/workflows', definition({ trigger: { type: 'event', pattern } }));
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields.map((field: { path: string }) => field.path)).toContain(path);
  });
});

describe('Events whose detail has keys inside the stamp', () => {
  it.each([
    [
      'a PutEvents entry',
      (source: string) => ({ Entries: [entry(source, { total: 1, 'wf-owner.x': 'a' })] }),
      'Entries[0].Detail.wf-owner.x',
    ],
    [
      'an envelope',
      (source: string) => ({
        source,
        'detail-type': 'Order Placed',
        detail: { total: 1, 'wf-owner.x': 'a' },
      }),
      'detail.wf-owner.x',
    ],
  ])('refuses %s, naming the key and starting nothing', async (_label, body, path) => {
    const starts = h.executions.starts.length;
    const reply = await h.bob.post('/local/events', body(`com.test.${randomUUID()}`));
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields.map((field: { path: string }) => field.path)).toEqual([path]);
    expect(h.executions.starts.length).toBe(starts);
  });
});

describe('A dotted pattern on the local bus', () => {
  it('matches the nested event of its owner, and never another owner’s', async () => {
    const source = `com.test.${randomUUID()}`;
    const pattern = { source: [source], 'detail.order.total': [{ numeric: ['>', 10] }] };
    const created = await h.alice.post('/v1/workflows', definition({ trigger: { type: 'event', pattern } }));
    expect(created.status).toBe(201);
    const workflowId = created.body.workflow.workflowId as string;

    const fromBob = await h.bob.post('/local/events', { Entries: [entry(source, { order: { total: 50 } })] });
    expect(fromBob.body.runs).toEqual([]);
    // A top-level envelope key spelled like the stamp is refused (the envelope schema is strict).
    const forged = await h.bob.post('/local/events', {
      source,
      'detail-type': 'Order Placed',
      detail: { order: { total: 50 } },
      'detail.wf-owner': h.owners.alice,
    });
    expect(forged.status).toBe(400);
    expect(forged.body.runs).toBeUndefined();

    const fromAlice = await h.alice.post('/local/events', {
      Entries: [entry(source, { 'order.total': 50 })],
    });
    expect(fromAlice.body.runs.map((run: { workflowId: string }) => run.workflowId)).toEqual([workflowId]);
  });
});
