/**
 * A human task's token against a late attempt of its wait, on DynamoDB Local: the retried `HumanTask` state
 * (a fresh task token, `$$.State.RetryCount` + 1) stored its token on the task; the earlier invocation, still
 * running, requests the task after it. The task keeps the live token (shared/graph-run/wait-fence.ts), sends
 * no second round of links, and a submission answers the live wait. A later execution of the run (an operator's
 * step retry) that requests the task again in the same attempt, its `RetryCount` back at 0, is the live one
 * (`$$.Execution.StartTime` heads the fence).
 */
import { describe, expect, it } from 'vitest';
import { waitFence } from '../../shared/graph-run/wait-fence.ts';
import { humanTaskPort, type RequestHumanTaskResult } from '../../shared/human-tasks/index.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import { humanTaskId } from '../../shared/schemas/human-task.ts';
import { useSfnWire } from '../approvals-http/sfn-wire.ts';
import { FixedClock } from '../support/store.ts';
import { deps, MANAGER, node, seededRun, store } from './support.ts';

const wire = useSfnWire();

/** A run whose `review` step (attempt 1) waits on a human task, and the human-task service's request of it. */
async function openReview() {
  const clock = new FixedClock();
  const run = await seededRun(clock);
  const inbox = inboxNotifier();
  const { deps: d } = deps(wire, clock, inbox);
  const results: RequestHumanTaskResult[] = [];
  const port = humanTaskPort(d, (result) => results.push(result));
  const request = {
    owner: run.owner,
    runId: run.runId,
    stepId: 'review',
    attempt: 1,
    workflowId: run.workflowId,
    workflowName: run.workflowName,
    title: 'Review',
    assignees: [MANAGER],
    form: node().form,
    context: {},
    expiresAt: new Date(clock.nowMs() + 120_000).toISOString(),
  };
  return { run, inbox, results, port, request };
}

describe('humanTaskPort.request with a late attempt', () => {
  it("keeps the retry's token when the earlier attempt requests the task after it", async () => {
    // Prepare
    const { run, inbox, results, port, request } = await openReview();
    const attempt = (retryCount: number) => waitFence(1, { retryCount, redriveCount: 0 });
    await port.request({ ...request, taskToken: 'token-live', waitFence: attempt(1) });
    // Act: the first attempt's late request.
    await port.request({ ...request, taskToken: 'token-stale', waitFence: attempt(0) });
    // Assess: the live token stays; the stale request changed nothing and sent nothing.
    const task = await store.getHumanTask(humanTaskId(run.runId, 'review', 1));
    expect(task).toMatchObject({ status: 'open', taskToken: 'token-live', waitFence: attempt(1) });
    expect(results.map((result) => result.status)).toEqual(['notified', 'superseded']);
    expect(inbox.notices()).toHaveLength(1);
    // A repeat of the live attempt, or a later one, is taken (the same token; a newer token).
    await port.request({ ...request, taskToken: 'token-live', waitFence: attempt(1) });
    await port.request({ ...request, taskToken: 'token-later', waitFence: attempt(2) });
    expect(results.map((result) => result.status)).toEqual(['notified', 'superseded', 'waiting', 'waiting']);
    expect((await store.getHumanTask(humanTaskId(run.runId, 'review', 1)))?.taskToken).toBe('token-later');
  });

  it("takes a later execution's request of the same attempt (RetryCount back at 0), and no late one of the execution before", async () => {
    // Prepare: execution 1's retried wait (RetryCount 1) opened the task; the run failed, and an operator's step
    // retry started execution 2, which requests the still-open task again in its same attempt (RetryCount 0).
    const { run, inbox, results, port, request } = await openReview();
    // `$$.Execution.StartTime` of each execution (https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html).
    const of = (startTime: string, retryCount: number) =>
      waitFence(1, { startTime, retryCount, redriveCount: 0 });
    const [execution1, execution2] = ['2026-11-30T07:00:00.000Z', '2026-11-30T07:30:00.000Z'];
    await port.request({ ...request, taskToken: 'execution-1', waitFence: of(execution1, 1) });
    // Act
    await port.request({ ...request, taskToken: 'execution-2', waitFence: of(execution2, 0) });
    await port.request({ ...request, taskToken: 'execution-1-late', waitFence: of(execution1, 2) });
    // Assess: the task waits on execution 2's token; the links went out once.
    const task = await store.getHumanTask(humanTaskId(run.runId, 'review', 1));
    expect(task).toMatchObject({ status: 'open', taskToken: 'execution-2', waitFence: of(execution2, 0) });
    expect(results.map((result) => result.status)).toEqual(['notified', 'waiting', 'superseded']);
    expect(inbox.notices()).toHaveLength(1);
  });
});
