/**
 * Every write of a workflow head is fenced on the head as it was read (its `rev`), not only on the fields
 * that write is about: a version saved, a draft saved or a draft published from a head read before a
 * disable must not put `enabled: true` back (shared/store/workflows.ts, workflow-drafts.ts). Against
 * DynamoDB Local.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { WorkflowHead, WorkflowVersion } from '../../shared/schemas/workflow-record.ts';
import { keys } from '../../shared/store/keys.ts';
import { WorkflowConflictError } from '../../shared/store/workflows.ts';
import { minimalWorkflow, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const later = (head: WorkflowHead, seconds: number) =>
  new Date(Date.parse(head.updatedAt) + seconds * 1000).toISOString();

/** A workflow, and the head a slow writer read before the owner disabled it (which is then committed). */
async function disabledUnderAReader() {
  const { head, version } = await seedWorkflow(store, minimalWorkflow());
  const read = (await store.getWorkflowHead(head.owner, head.workflowId))!;
  await store.updateWorkflowHead(read, { ...read, enabled: false, updatedAt: later(read, 1) });
  return { read, version };
}

const nextVersion = (version: WorkflowVersion, number: number, status: 'draft' | 'published') => ({
  ...version,
  version: number,
  createdAt: new Date(Date.parse(version.createdAt) + 2000).toISOString(),
  status,
  ...(status === 'draft' ? { updatedAt: new Date(Date.parse(version.createdAt) + 2000).toISOString() } : {}),
});

describe('a head write fenced on the head as read (rev)', () => {
  it('a version saved from a head read before a disable is a conflict, and the workflow stays disabled', async () => {
    const { read, version } = await disabledUnderAReader();

    const save = store.addWorkflowVersion(
      read,
      { ...read, latestVersion: 2, updatedAt: later(read, 2) },
      nextVersion(version, 2, 'published'),
    );

    await expect(save).rejects.toBeInstanceOf(WorkflowConflictError);
    const stored = (await store.getWorkflowHead(read.owner, read.workflowId))!;
    expect(stored).toMatchObject({ enabled: false, latestVersion: 1, rev: 2 });
    expect(await store.getWorkflowVersion(read.owner, read.workflowId, 2)).toBeUndefined();
  });

  it('a draft saved from a head read before a disable is a conflict, and the workflow stays disabled', async () => {
    const { read, version } = await disabledUnderAReader();

    const save = store.saveWorkflowDraft(
      read,
      { ...read, draftVersion: 2, updatedAt: later(read, 2) },
      nextVersion(version, 2, 'draft'),
      'alice',
    );

    await expect(save).rejects.toBeInstanceOf(WorkflowConflictError);
    const stored = (await store.getWorkflowHead(read.owner, read.workflowId))!;
    expect(stored.enabled).toBe(false);
    expect(stored.draftVersion).toBeUndefined();
  });

  it('a draft published from a head read before a disable is a conflict, and the workflow stays disabled', async () => {
    // Prepare: a draft saved; the publisher reads the head with it; then the owner disables the workflow.
    const { head, version } = await seedWorkflow(store, minimalWorkflow());
    const draft = nextVersion(version, 2, 'draft');
    await store.saveWorkflowDraft(head, { ...head, draftVersion: 2, updatedAt: later(head, 1) }, draft, 'a');
    const read = (await store.getWorkflowHead(head.owner, head.workflowId))!;
    await store.updateWorkflowHead(read, { ...read, enabled: false, updatedAt: later(read, 2) });

    // Act
    const { draftVersion: _closed, ...rest } = read;
    const publish = store.publishWorkflowDraft(
      read,
      { ...rest, latestVersion: 2, updatedAt: later(read, 3) },
      draft,
      { ...draft, status: 'published', publishedAt: later(read, 3), publishedBy: 'a' },
    );

    // Assess: nothing moved: still disabled, the draft still open and still a draft.
    await expect(publish).rejects.toBeInstanceOf(WorkflowConflictError);
    const stored = (await store.getWorkflowHead(head.owner, head.workflowId))!;
    expect(stored).toMatchObject({ enabled: false, latestVersion: 1, draftVersion: 2, rev: 3 });
    expect((await store.getWorkflowVersion(head.owner, head.workflowId, 2))?.status).toBe('draft');
  });

  it('a disable from a head read before a draft was saved in the same millisecond is a conflict', async () => {
    // Prepare: the draft's head write carries the `updatedAt` the disabler read (two containers, one
    // millisecond) and leaves `latestVersion` as it was, so neither field tells the two heads apart.
    const { head, version } = await seedWorkflow(store, minimalWorkflow());
    const read = (await store.getWorkflowHead(head.owner, head.workflowId))!;
    await store.saveWorkflowDraft(read, { ...read, draftVersion: 2 }, nextVersion(version, 2, 'draft'), 'a');

    // Act: the disable, from the head read before the draft.
    const disable = store.updateWorkflowHead(read, { ...read, enabled: false });

    // Assess: a conflict; the draft stays open (a head put back without `draftVersion` would orphan it).
    await expect(disable).rejects.toBeInstanceOf(WorkflowConflictError);
    expect(await store.getWorkflowHead(head.owner, head.workflowId)).toMatchObject({
      enabled: true,
      draftVersion: 2,
    });
  });

  it('returns the head as written, its rev one higher, and a head stored without rev counts as rev 0', async () => {
    // Prepare: a head as stored before revisions existed (no `rev` attribute).
    const { head, version } = await seedWorkflow(store, minimalWorkflow());
    const { rev: _none, ...legacy } = head;
    await store.ctx.doc.send(
      new PutCommand({
        TableName: store.ctx.table,
        Item: { ...keys.workflowHead(head.owner, head.workflowId), ...legacy },
      }),
    );
    const read = (await store.getWorkflowHead(head.owner, head.workflowId))!;
    expect(read.rev).toBeUndefined();

    // Act: two writes in a row, each from the head the previous one returned.
    const saved = await store.addWorkflowVersion(
      read,
      { ...read, latestVersion: 2, updatedAt: later(read, 1) },
      nextVersion(version, 2, 'published'),
    );
    const disabled = await store.updateWorkflowHead(saved, { ...saved, enabled: false });

    // Assess
    expect(saved.rev).toBe(1);
    expect(disabled.rev).toBe(2);
    expect(await store.getWorkflowHead(head.owner, head.workflowId)).toEqual(disabled);
    // The legacy read is stale now: a write from it is a conflict.
    await expect(store.updateWorkflowHead(read, { ...read, enabled: false })).rejects.toBeInstanceOf(
      WorkflowConflictError,
    );
  });
});
