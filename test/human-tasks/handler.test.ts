/** functions/request-human-task.ts: the event is checked before anything is written, then the task is opened. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestHumanTaskHandler } from '../../functions/request-human-task.ts';
import { humanTaskId } from '../../shared/schemas/human-task.ts';
import { type SfnWire, startSfnWire } from '../approvals-http/sfn-wire.ts';
import { FixedClock } from '../support/store.ts';
import { deps, node, RUN_DATA, seededRun, store } from './support.ts';

let wire: SfnWire;
beforeAll(async () => {
  wire = await startSfnWire();
});
afterAll(() => wire.close());

describe('request-human-task handler', () => {
  it("opens the step attempt's task from the wait's event", async () => {
    const clock = new FixedClock();
    const run = await seededRun(clock);
    const handler = createRequestHumanTaskHandler(async () => deps(wire, clock).deps);
    const event = {
      runId: run.runId,
      stepId: 'review',
      attempt: 2,
      taskToken: 'tok',
      node: node(),
      runData: RUN_DATA,
    };
    const taskId = humanTaskId(run.runId, 'review', 2);
    expect(await handler(event)).toEqual({ status: 'notified', taskId });
    expect((await store.getHumanTask(taskId))!.taskToken).toBe('tok');
  });

  it('refuses an event without a task token or with a node that is not a human task, writing nothing', async () => {
    const clock = new FixedClock();
    const run = await seededRun(clock);
    const handler = createRequestHumanTaskHandler(async () => deps(wire, clock).deps);
    const event = { runId: run.runId, stepId: 'review', node: node(), runData: RUN_DATA };
    await expect(handler(event)).rejects.toThrow(/taskToken/);
    await expect(
      handler({ ...event, taskToken: 't', node: { ...node(), type: 'agent_task' } }),
    ).rejects.toThrow();
    expect(await store.listRunHumanTasks(run.runId)).toEqual([]);
  });
});
