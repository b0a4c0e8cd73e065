/**
 * A human task's wait that times out, on DynamoDB Local without a state machine: `CompleteStep` (graph-advance)
 * with the Catch's `States.Timeout` records the task `expired` (audited, its wait's token dropped) before the
 * step takes its `onTimeout` path, so a later submission is refused; a submission recorded before the timer
 * fired (its resume could not reach the wait) wins the race and is the step's output. `HumanTask.Expired` (a
 * re-requested wait that found the task expired) is a timeout too.
 */
import { describe, expect, it } from 'vitest';
import { TaskTokenSendError } from '../../shared/approvals-http/errors.ts';
import type { TaskTokensPort } from '../../shared/approvals-http/task-tokens.ts';
import { HumanTaskClosedError } from '../../shared/core/store-errors.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { completeStep } from '../../shared/graph-run/complete-step.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import { startHumanTaskWait, startStepWait } from '../../shared/graph-run/wait.ts';
import { humanTaskExpiry } from '../../shared/human-tasks/expiry.ts';
import { completeHumanTask, HUMAN_TASK_ERRORS, humanTaskPort } from '../../shared/human-tasks/index.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import { humanTaskId } from '../../shared/schemas/human-task.ts';
import { keyring, PUBLIC_BASE, recordingLogger } from '../approvals-http/support.ts';
import { FixedClock, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { reviewGraph as reviewGraphOf } from './fixtures.ts';

const store = testStore();
const MANAGER = 'manager@example.com';

const reviewGraph = () =>
  reviewGraphOf('review-timeout', MANAGER, {
    onTimeout: { action: 'continue', output: { approve: false, note: 'timed out' } },
  });

/** Task tokens whose answers can be made to fail (Step Functions unreachable, or the wait already over). */
function tokens() {
  const sent: string[] = [];
  let failing = false;
  const port: TaskTokensPort = {
    async sendSuccess(token) {
      if (failing) throw new TaskTokenSendError('SendTaskSuccess', 'TaskTimedOut', 1, 400);
      sent.push(token);
      return 'sent';
    },
    async sendFailure(token) {
      sent.push(token);
      return 'sent';
    },
  };
  return { port, sent, fail: () => (failing = true) };
}

/** A graph run whose `review` step waits on its open human task (the real service, links in an inbox). */
async function waitingReview() {
  const clock = new FixedClock();
  const { version } = await seedWorkflow(store, reviewGraph(), { clock });
  const run = await seedRun(store, version, { clock });
  const graph = { store, definitionOf: graphDefinitions(store), clock };
  await advanceGraphRun(graph, run.runId);
  const taskTokens = tokens();
  const service = {
    store,
    clock,
    keyring,
    publicBaseUrl: PUBLIC_BASE,
    taskTokens: taskTokens.port,
    logger: recordingLogger(),
  };
  const ref = { runId: run.runId, stepId: 'review', type: 'human_task' as const, attempt: 1 };
  const started = await startHumanTaskWait(
    { ...graph, humanTasks: humanTaskPort({ ...service, notifier: inboxNotifier() }) },
    { ...ref, taskToken: 'wait-token-1' },
  );
  expect(started).toBe('human_task_requested');
  const complete = { ...graph, humanTasks: humanTaskExpiry({ store, clock }) };
  const taskId = humanTaskId(run.runId, 'review', 1);
  const step = async () => (await store.loadGraphRun(run.runId))!.steps.find((s) => s.stepId === 'review');
  return { run, clock, ref, taskId, taskTokens, service, complete, step };
}

describe('a human task whose wait times out', () => {
  it('is expired (audited, token dropped) before the step takes onTimeout; a later submission is refused', async () => {
    const s = await waitingReview();
    expect((await store.getHumanTask(s.taskId))?.status).toBe('open');

    const status = await completeStep(s.complete, { ...s.ref, error: { Error: 'States.Timeout' } });

    expect(status).toBe('succeeded');
    expect(await s.step()).toMatchObject({
      status: 'succeeded',
      timedOut: true,
      output: { approve: false, note: 'timed out' },
    });
    const task = await store.getHumanTask(s.taskId);
    expect(task).toMatchObject({ status: 'expired', closedReason: 'timeout' });
    expect(task?.taskToken).toBeUndefined();
    const audit = (await store.listAudit(s.run.runId)).map((entry) => entry.type);
    expect(audit.filter((type) => type === 'human_task_expired')).toHaveLength(1);
    // The clock is still inside the window: only the record refuses it.
    await expect(
      completeHumanTask(s.service, { taskId: s.taskId, assignee: MANAGER, values: { approve: true } }),
    ).rejects.toEqual(new HumanTaskClosedError(s.taskId, 'expired'));
    expect(s.taskTokens.sent).toEqual([]);
  });

  it('a submission recorded before the timeout wins: it is the output, not onTimeout', async () => {
    const s = await waitingReview();
    // The form is submitted; its resume cannot reach the wait (the timer fired meanwhile).
    s.taskTokens.fail();
    const submitted = await completeHumanTask(s.service, {
      taskId: s.taskId,
      assignee: MANAGER,
      values: { approve: true },
    });
    expect(submitted.answer).toBe('failed');

    const status = await completeStep(s.complete, { ...s.ref, error: { Error: 'States.Timeout' } });

    expect(status).toBe('succeeded');
    const step = await s.step();
    expect(step).toMatchObject({ status: 'succeeded', output: { approve: true } });
    expect(step?.timedOut).toBeUndefined();
    expect(await store.getHumanTask(s.taskId)).toMatchObject({ status: 'submitted', submittedBy: MANAGER });
    const audit = (await store.listAudit(s.run.runId)).map((entry) => entry.type);
    expect(audit).not.toContain('human_task_expired');
  });

  it('HumanTask.Expired (a re-requested wait found it expired) takes onTimeout too', async () => {
    const s = await waitingReview();
    const status = await completeStep(s.complete, {
      ...s.ref,
      error: { Error: HUMAN_TASK_ERRORS.expired, Cause: 'the human task is expired' },
    });
    expect(status).toBe('succeeded');
    expect(await s.step()).toMatchObject({ timedOut: true, output: { approve: false } });
    expect((await store.getHumanTask(s.taskId))?.status).toBe('expired');
  });

  it('another failure of the wait closes the open task (not expired): its links stop working', async () => {
    const s = await waitingReview();
    const status = await completeStep(s.complete, {
      ...s.ref,
      error: { Error: 'States.TaskFailed', Cause: 'the human-task function failed after opening the task' },
    });
    expect(status).toBe('failed');
    const task = await store.getHumanTask(s.taskId);
    expect(task).toMatchObject({ status: 'closed', closedReason: 'wait_failed: States.TaskFailed' });
    expect(task?.taskToken).toBeUndefined();
    const audit = (await store.listAudit(s.ref.runId)).map((entry) => entry.type);
    expect(audit).toContain('human_task_closed');
    expect(audit).not.toContain('human_task_expired');
  });
});

describe('who opens a human task', () => {
  it('graph-wait (child runs) refuses a human_task step and opens nothing: only the human-task function does', async () => {
    const clock = new FixedClock();
    const { version } = await seedWorkflow(store, reviewGraph(), { clock });
    const run = await seedRun(store, version, { clock });
    const graph = { store, definitionOf: graphDefinitions(store), clock };
    await advanceGraphRun(graph, run.runId);
    const wait = {
      runId: run.runId,
      stepId: 'review',
      type: 'human_task' as const,
      attempt: 1,
      taskToken: 't',
    };
    await expect(
      startStepWait(
        {
          ...graph,
          ids: { next: (prefix) => `${prefix}_unused` },
          executions: { start: async () => ({ executionArn: 'unused' }), stop: async () => {} },
          answer: async () => 'sent',
        },
        wait,
      ),
    ).rejects.toThrow('step review does not wait on a child run');
    expect(await store.getHumanTask(humanTaskId(run.runId, 'review', 1))).toBeUndefined();
    const step = (await store.loadGraphRun(run.runId))!.steps.find((s) => s.stepId === 'review');
    expect(step?.taskToken).toBeUndefined();
  });
});
