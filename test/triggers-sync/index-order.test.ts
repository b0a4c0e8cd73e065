/**
 * Two syncs of one workflow landing out of order: B's (the newer head) first, then A's (the head B's write
 * replaced). The trigger index is written only while the head is still at the revision the sync read
 * (shared/store/trigger-index.ts), so A's late sync changes nothing, whether it would delete B's entry or
 * put one back after B deleted it. Against DynamoDB Local.
 */
import { describe, expect, it } from 'vitest';
import type { WorkflowHead } from '../../shared/schemas/workflow-record.ts';
import { localTriggerSync, TriggerSyncSupersededError } from '../../shared/triggers-sync/index.ts';
import type { TriggerSyncRequest } from '../../shared/triggers-sync/port.ts';
import { minimalWorkflow, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const sync = localTriggerSync(store);
const schedule = { type: 'schedule', expression: 'rate(5 minutes)', timezone: 'UTC' } as const;

/** What a route's sync sends for a head (as `syncTriggers` builds it). */
const requestOf = (head: WorkflowHead): TriggerSyncRequest => ({
  owner: head.owner,
  workflowId: head.workflowId,
  name: head.name,
  enabled: head.enabled,
  deleted: head.deleted,
  trigger: schedule,
  rev: head.rev ?? 0,
});

const indexed = async (head: WorkflowHead) =>
  (await store.listTriggerIndex('schedule')).filter((entry) => entry.workflowId === head.workflowId);

async function scheduled() {
  const { head } = await seedWorkflow(store, minimalWorkflow({ trigger: schedule }));
  await sync.sync(requestOf(head));
  return head;
}

describe('trigger index writes fenced on the head revision', () => {
  it('A disables, B enables and syncs, then A syncs late: the entry stays', async () => {
    // Prepare: A's disable commits (and A reads it for its sync), then B's enable commits and syncs.
    const head = await scheduled();
    const a = await store.updateWorkflowHead(head, { ...head, enabled: false });
    const b = await store.updateWorkflowHead(a, { ...a, enabled: true });
    await sync.sync(requestOf(b));

    // Act: A's sync, from the head A wrote, lands last.
    const late = sync.sync(requestOf(a));

    // Assess: refused as superseded; the enabled workflow keeps its schedule.
    await expect(late).rejects.toBeInstanceOf(TriggerSyncSupersededError);
    expect(await indexed(head)).toHaveLength(1);
  });

  it('A enables, B disables and syncs, then A syncs late: no entry comes back', async () => {
    const head = await scheduled();
    const off = await store.updateWorkflowHead(head, { ...head, enabled: false });
    await sync.sync(requestOf(off));
    const a = await store.updateWorkflowHead(off, { ...off, enabled: true });
    const b = await store.updateWorkflowHead(a, { ...a, enabled: false });
    await sync.sync(requestOf(b));

    const late = sync.sync(requestOf(a));

    await expect(late).rejects.toBeInstanceOf(TriggerSyncSupersededError);
    expect(await indexed(head)).toEqual([]);
  });

  it('a sync at the current revision is idempotent (enabling again repairs the entry)', async () => {
    const head = await scheduled();
    await store.deleteTriggerIndex(head.owner, head.workflowId);
    await sync.sync(requestOf(head));
    await sync.sync(requestOf(head));
    expect(await indexed(head)).toHaveLength(1);
  });
});
