/**
 * `GET /v1/human-tasks`: the owner's human tasks, newest first, by status, never with the task token; another
 * owner sees none of them, and a page token of another owner's listing is a 400 naming `nextToken`.
 */
import { describe, expect, it } from 'vitest';
import { type HumanTask, humanTaskId } from '../../shared/schemas/human-task.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow } from '../support/store.ts';
import { apiHarness } from './helpers.ts';

const h = apiHarness();

async function taskFor(owner: string, stepId: string, status: HumanTask['status'], createdAt: string) {
  const clock = new FixedClock();
  const { version } = await seedWorkflow(
    h.store,
    minimalWorkflow({ name: `flow-${stepId.replaceAll('_', '-')}` }),
    {
      owner,
      clock,
    },
  );
  const run = await seedRun(h.store, version, { clock });
  const task: HumanTask = {
    schemaVersion: 1,
    taskId: humanTaskId(run.runId, stepId, 1),
    owner,
    runId: run.runId,
    stepId,
    attempt: 1,
    workflowId: run.workflowId,
    workflowName: run.workflowName,
    workflowVersion: run.workflowVersion,
    title: `Review ${stepId}`,
    assignees: ['manager@example.com'],
    form: { type: 'object', properties: { approve: { type: 'boolean' } } },
    formHash: 'a'.repeat(64),
    context: [],
    status,
    createdAt,
    expiresAt: '2026-12-02T00:00:00.000Z',
    taskToken: 'secret-task-token',
  };
  await h.store.commit({ run, next: run, humanTaskPut: [{ task }] });
  return task;
}

describe('GET /v1/human-tasks', () => {
  it("lists the owner's open tasks newest first without task tokens; bob sees none of them", async () => {
    // Prepare
    const older = await taskFor(h.owners.alice, 'first_review', 'open', '2026-12-01T08:00:00.000Z');
    const newer = await taskFor(h.owners.alice, 'second_review', 'open', '2026-12-01T09:00:00.000Z');
    await taskFor(h.owners.alice, 'done_review', 'submitted', '2026-12-01T10:00:00.000Z');

    // Act
    const alice = await h.alice.get('/v1/human-tasks?status=open');
    const all = await h.alice.get('/v1/human-tasks');
    const bob = await h.bob.get('/v1/human-tasks');

    // Assess
    expect(alice.status).toBe(200);
    expect(alice.body.items.map((task: HumanTask) => task.taskId)).toEqual([newer.taskId, older.taskId]);
    expect(alice.body.items[0]).toMatchObject({
      title: 'Review second_review',
      assignees: ['manager@example.com'],
    });
    expect(JSON.stringify(all.body)).not.toContain('secret-task-token');
    expect(all.body.items).toHaveLength(3);
    expect(bob.status).toBe(200);
    expect(bob.body.items).toEqual([]);
  });

  it("refuses a page token from another owner's listing, naming nextToken", async () => {
    // Prepare: two pages of alice's tasks.
    await taskFor(h.owners.alice, 'page_one', 'open', '2026-12-01T11:00:00.000Z');
    await taskFor(h.owners.alice, 'page_two', 'open', '2026-12-01T12:00:00.000Z');
    const first = await h.alice.get('/v1/human-tasks?limit=1');
    expect(first.body.nextToken).toEqual(expect.any(String));

    // Act
    const stolen = await h.bob.get(`/v1/human-tasks?limit=1&nextToken=${first.body.nextToken}`);
    const second = await h.alice.get(`/v1/human-tasks?limit=1&nextToken=${first.body.nextToken}`);

    // Assess
    expect(stolen.status).toBe(400);
    expect(JSON.stringify(stolen.body)).toContain('nextToken');
    expect(second.status).toBe(200);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.items[0].taskId).not.toBe(first.body.items[0].taskId);
  });

  it('refuses an unknown status, naming it', async () => {
    const reply = await h.alice.get('/v1/human-tasks?status=lost');
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body)).toContain('status');
  });
});
