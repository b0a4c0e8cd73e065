/**
 * Submissions on DynamoDB Local: the first valid one is recorded with its audit entry and resumes the wait with
 * `{ output }`; a second, concurrent, expired, foreign or post-cancel one writes nothing. Timeouts and cancels
 * close open tasks (fail closed) and leave a submitted one alone.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex, verifyAuditChain } from '../../shared/audit/index.ts';
import { endRun } from '../../shared/core/end-run.ts';
import { HumanTaskClosedError } from '../../shared/core/store-errors.ts';
import {
  closeHumanTasks,
  completeHumanTask,
  expireHumanTask,
  HUMAN_TASK_ERRORS,
} from '../../shared/human-tasks/index.ts';
import { sfnError, useSfnWire } from '../approvals-http/sfn-wire.ts';
import { DEPUTY, MANAGER, store, taskScenario } from './support.ts';

const wire = useSfnWire();

const VALUES = { decision: 'approve', reference: 'R-100', amount: 12.5, urgent: true };

async function state(runId: string, taskId: string) {
  return { task: await store.getHumanTask(taskId), audit: (await store.listAudit(runId)).length };
}

describe('completeHumanTask', () => {
  it('records the submission and who made it, audits it, and resumes the wait with { output }', async () => {
    const s = await taskScenario(wire);
    wire.reset();
    const done = await completeHumanTask(s.deps, { taskId: s.taskId, assignee: DEPUTY, values: VALUES });
    expect(done.answer).toBe('sent');
    expect(await store.getHumanTask(s.taskId)).toMatchObject({
      status: 'submitted',
      submission: VALUES,
      submittedBy: DEPUTY,
      submittedAt: new Date(s.clock.nowMs()).toISOString(),
    });
    expect(wire.calls).toHaveLength(1);
    expect(wire.calls[0]!.target).toBe('AWSStepFunctions.SendTaskSuccess');
    expect(wire.calls[0]!.body).toEqual({
      taskToken: s.taskToken,
      output: JSON.stringify({ output: VALUES }),
    });
    const audit = await store.listAudit(s.run.runId);
    expect(audit.at(-1)).toMatchObject({
      type: 'human_task_submitted',
      actor: `assignee:${DEPUTY}`,
      data: {
        taskId: s.taskId,
        stepId: 'review',
        submission: VALUES,
        submissionHash: sha256Hex(canonicalJson(VALUES)),
      },
    });
    expect(verifyAuditChain(audit, { owner: s.run.owner, runId: s.run.runId }).ok).toBe(true);
  });

  it('is single use: a second submission is refused and changes nothing', async () => {
    const s = await taskScenario(wire);
    await completeHumanTask(s.deps, { taskId: s.taskId, assignee: MANAGER, values: VALUES });
    const before = await state(s.run.runId, s.taskId);
    wire.reset();
    await expect(
      completeHumanTask(s.deps, {
        taskId: s.taskId,
        assignee: DEPUTY,
        values: { ...VALUES, decision: 'reject' },
      }),
    ).rejects.toMatchObject({ name: 'HumanTaskClosedError', status: 'submitted' });
    expect(await state(s.run.runId, s.taskId)).toEqual(before);
    expect(wire.calls).toEqual([]);
  });

  it('two concurrent submissions: exactly one is recorded and resumes the run', async () => {
    const s = await taskScenario(wire);
    wire.reset();
    const results = await Promise.allSettled([
      completeHumanTask(s.deps, { taskId: s.taskId, assignee: MANAGER, values: VALUES }),
      completeHumanTask(s.deps, {
        taskId: s.taskId,
        assignee: DEPUTY,
        values: { ...VALUES, decision: 'reject' },
      }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(HumanTaskClosedError);
    expect(wire.calls.filter((c) => c.target.endsWith('SendTaskSuccess'))).toHaveLength(1);
    const audit = await store.listAudit(s.run.runId);
    expect(audit.filter((e) => e.type === 'human_task_submitted')).toHaveLength(1);
  });

  it('refuses after the expiry by the clock, even before the timeout step ran (fail closed)', async () => {
    const s = await taskScenario(wire);
    s.clock.advance(600_000);
    const before = await state(s.run.runId, s.taskId);
    await expect(
      completeHumanTask(s.deps, { taskId: s.taskId, assignee: MANAGER, values: VALUES }),
    ).rejects.toMatchObject({ status: 'expired' });
    expect(await state(s.run.runId, s.taskId)).toEqual(before);
  });

  it('refuses someone who is not an assignee, and an unknown task', async () => {
    const s = await taskScenario(wire);
    await expect(
      completeHumanTask(s.deps, { taskId: s.taskId, assignee: 'mallory@example.com', values: VALUES }),
    ).rejects.toMatchObject({ status: 'not an assignee' });
    await expect(
      completeHumanTask(s.deps, { taskId: 'htk_nosuchrun_review_1', assignee: MANAGER, values: VALUES }),
    ).rejects.toMatchObject({ status: 'unknown' });
    expect((await store.getHumanTask(s.taskId))!.status).toBe('open');
  });

  it('a submission whose resume fails is still recorded; the timeout step then returns it as the output', async () => {
    const s = await taskScenario(wire);
    wire.replies.push(
      sfnError('ServiceUnavailable', 503),
      ...Array(3).fill(sfnError('ServiceUnavailable', 503)),
    );
    const done = await completeHumanTask(s.deps, { taskId: s.taskId, assignee: MANAGER, values: VALUES });
    expect(done.answer).toBe('failed');
    s.clock.advance(600_000);
    expect(await expireHumanTask(s.deps, { runId: s.run.runId, stepId: 'review' })).toEqual({
      status: 'submitted',
      taskId: s.taskId,
      output: VALUES,
    });
  });
});

describe('closing', () => {
  it('the timeout expires an open task, audited, and its links stop working', async () => {
    const s = await taskScenario(wire);
    s.clock.advance(600_000);
    expect(await expireHumanTask(s.deps, { runId: s.run.runId, stepId: 'review' })).toMatchObject({
      status: 'expired',
    });
    expect(await store.getHumanTask(s.taskId)).toMatchObject({ status: 'expired', closedReason: 'timeout' });
    expect((await store.listAudit(s.run.runId)).at(-1)!.type).toBe('human_task_expired');
    // A second timeout (a retried step) changes nothing.
    const before = await state(s.run.runId, s.taskId);
    expect(await expireHumanTask(s.deps, { runId: s.run.runId, stepId: 'review' })).toMatchObject({
      status: 'expired',
    });
    expect(await state(s.run.runId, s.taskId)).toEqual(before);
  });

  it('cancelling the run closes its open tasks, fails their waits, and refuses later submissions', async () => {
    const s = await taskScenario(wire);
    wire.reset();
    // Close before the run's final transition: the final audit head is anchored when the run ends.
    const closed = await closeHumanTasks(s.deps, { runId: s.run.runId, reason: 'run_cancelled' });
    expect(closed.map((t) => t.taskId)).toEqual([s.taskId]);
    expect(await store.getHumanTask(s.taskId)).toMatchObject({
      status: 'closed',
      closedReason: 'run_cancelled',
    });
    expect(wire.calls.map((c) => [c.target, c.body.error])).toEqual([
      ['AWSStepFunctions.SendTaskFailure', HUMAN_TASK_ERRORS.closed],
    ]);
    await expect(
      completeHumanTask(s.deps, { taskId: s.taskId, assignee: MANAGER, values: VALUES }),
    ).rejects.toMatchObject({ status: 'closed' });
    expect(await closeHumanTasks(s.deps, { runId: s.run.runId, reason: 'run_cancelled' })).toEqual([]);
  });

  it('a task still open when its run ended takes no submission', async () => {
    const s = await taskScenario(wire);
    await endRun(s.deps, {
      runId: s.run.runId,
      status: 'cancelled',
      stopReason: 'cancelled',
      why: 'the run was cancelled',
      actor: 'owner:test',
      audit: [],
    });
    const before = await state(s.run.runId, s.taskId);
    await expect(
      completeHumanTask(s.deps, { taskId: s.taskId, assignee: MANAGER, values: VALUES }),
    ).rejects.toMatchObject({ status: 'run ended' });
    expect(await state(s.run.runId, s.taskId)).toEqual(before);
  });
});
