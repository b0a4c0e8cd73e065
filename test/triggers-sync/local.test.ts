import { describe, expect, it } from 'vitest';
import type { Trigger } from '../../shared/schemas/trigger.ts';
import { localTriggerSync } from '../../shared/triggers-sync/index.ts';
import { randomIds, testStore, uniqueOwner } from '../support/store.ts';

const store = testStore();
const sync = localTriggerSync(store);
const schedule: Trigger = { type: 'schedule', expression: 'rate(5 minutes)', timezone: 'UTC' };
const event: Trigger = { type: 'event', pattern: { source: ['com.example'] } };

function workflow(trigger: Trigger) {
  return {
    owner: uniqueOwner(),
    workflowId: randomIds.next('wf'),
    name: 'indexed',
    enabled: true,
    deleted: false,
    trigger,
  };
}
const indexed = async (type: 'schedule' | 'event', workflowId: string) =>
  (await store.listTriggerIndex(type)).filter((entry) => entry.workflowId === workflowId);

describe('localTriggerSync (trigger index on DynamoDB Local)', () => {
  it('indexes an enabled schedule workflow under its type, across owners', async () => {
    const a = workflow(schedule);
    const b = workflow(schedule);
    await sync.sync(a);
    await sync.sync(b);
    expect(await indexed('schedule', a.workflowId)).toEqual([
      { owner: a.owner, workflowId: a.workflowId, name: 'indexed', trigger: schedule },
    ]);
    expect(await indexed('schedule', b.workflowId)).toHaveLength(1);
    expect(await indexed('event', a.workflowId)).toEqual([]);
  });

  it('moves a workflow between types when a new version changes its trigger', async () => {
    const w = workflow(schedule);
    await sync.sync(w);
    await sync.sync({ ...w, trigger: event });
    expect(await indexed('schedule', w.workflowId)).toEqual([]);
    expect((await indexed('event', w.workflowId))[0]?.trigger).toEqual(event);
    await sync.sync({ ...w, trigger: { type: 'on_demand' } });
    expect(await indexed('event', w.workflowId)).toEqual([]);
  });

  it.each([
    ['disabled', { enabled: false }],
    ['deleted', { deleted: true, enabled: false }],
  ])('removes a %s workflow, and indexes it again when enabled', async (_label, change) => {
    const w = workflow(event);
    await sync.sync(w);
    await sync.sync({ ...w, ...change });
    expect(await indexed('event', w.workflowId)).toEqual([]);
    await sync.sync(w);
    expect(await indexed('event', w.workflowId)).toHaveLength(1);
  });

  it('treats removing what is not indexed as done', async () => {
    await expect(sync.sync({ ...workflow(schedule), deleted: true })).resolves.toBeUndefined();
  });
});
