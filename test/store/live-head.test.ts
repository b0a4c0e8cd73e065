/**
 * `liveHead` on a run commit: the workflow head as a ConditionCheck of the same transaction (no read of its
 * own). The write lands only while the head is enabled, not deleted and at the expected latest version; any
 * other head (disabled, deleted, republished, gone) writes nothing and says WorkflowHeadMovedError.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { WorkflowHead } from '../../shared/schemas/workflow-record.ts';
import { keys, RunConflictError, WorkflowHeadMovedError } from '../../shared/store/index.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const clock = new FixedClock();

async function putHead(head: WorkflowHead, change: Partial<WorkflowHead> | 'gone') {
  if (change === 'gone') {
    await store.ctx.doc.send(
      new DeleteCommand({ TableName: store.ctx.table, Key: keys.workflowHead(head.owner, head.workflowId) }),
    );
    return;
  }
  await store.ctx.doc.send(
    new PutCommand({
      TableName: store.ctx.table,
      Item: { ...keys.workflowHead(head.owner, head.workflowId), ...head, ...change },
    }),
  );
}

async function seeded() {
  const { head, version } = await seedWorkflow(store, minimalWorkflow());
  const run = await seedRun(store, version, { clock });
  const liveHead = { owner: head.owner, workflowId: head.workflowId, latestVersion: 1 };
  const commit = () =>
    store.commit({
      run,
      next: { ...run, updatedAt: new Date(clock.nowMs()).toISOString() },
      liveHead,
      audit: [
        { type: 'gate_decision', actor: 'system', data: { toolUseId: 't', tool: 'x', decision: 'allow' } },
      ],
    });
  return { head, run, commit };
}

describe('Store: a commit under the live workflow head', () => {
  it('lands while the head is enabled, not deleted and at the expected version', async () => {
    const { run, commit } = await seeded();
    const next = await commit();
    expect(next.rev).toBe(run.rev + 1);
    expect((await store.getRun(run.runId))?.rev).toBe(run.rev + 1);
  });

  it('lands on a head stored before `deleted` existed (no such attribute: not deleted)', async () => {
    const { head, run, commit } = await seeded();
    const { deleted: _deleted, ...older } = head;
    await store.ctx.doc.send(
      new PutCommand({
        TableName: store.ctx.table,
        Item: { ...keys.workflowHead(head.owner, head.workflowId), ...older },
      }),
    );
    await expect(commit()).resolves.toMatchObject({ rev: run.rev + 1 });
  });

  it.each([
    ['disabled', { enabled: false }],
    ['deleted', { deleted: true }],
    ['republished', { latestVersion: 2 }],
    ['gone', 'gone'],
  ] as const)('writes nothing when the workflow was %s', async (_name, change) => {
    const { head, run, commit } = await seeded();
    await putHead(head, change as Partial<WorkflowHead> | 'gone');
    await expect(commit()).rejects.toBeInstanceOf(WorkflowHeadMovedError);
    const after = await store.getRun(run.runId);
    expect(after?.rev).toBe(run.rev);
    expect(after?.audit).toEqual(run.audit);
  });

  it('still reports a lost race on the run as a conflict when the head is fine', async () => {
    const { commit } = await seeded();
    await commit();
    await expect(commit()).rejects.toBeInstanceOf(RunConflictError);
  });
});
