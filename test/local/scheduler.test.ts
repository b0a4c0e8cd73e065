import { describe, expect, it } from 'vitest';
import { startLocalScheduler } from '../../shared/local/scheduler.ts';
import type { ExecutionsPort } from '../../shared/runs/index.ts';
import { localTriggerSync } from '../../shared/triggers-sync/index.ts';
import { FixedClock, minimalWorkflow, randomIds, seedWorkflow, testStore } from '../support/store.ts';
import { createOwnTable } from '../support/table.ts';

/**
 * A table of this file's own: the scheduler starts every due schedule in its table, so on the shared one it
 * would also start runs of other files' schedule workflows (while those files may be counting their runs).
 */
const store = testStore((await createOwnTable()).tableName);

function recordingExecutions(): ExecutionsPort & { started: string[] } {
  const started: string[] = [];
  return {
    started,
    start: async (name) => {
      started.push(name);
      return { executionArn: `arn:aws:states:local:000000000000:execution:local:${name}` };
    },
    stop: async () => undefined,
  };
}

describe('Local scheduler', () => {
  it('starts exactly one run per scheduled time across a restart, in Europe/Berlin across the DST change', async () => {
    // Prepare: a daily 02:30 Berlin schedule. On 2026-03-29 clocks jump from 02:00 to 03:00, so 02:30 does
    // not exist that day and (as EventBridge Scheduler documents) nothing fires; the days around it fire once.
    const trigger = { type: 'schedule', expression: 'cron(30 2 * * ? *)', timezone: 'Europe/Berlin' };
    const { head } = await seedWorkflow(store, minimalWorkflow({ trigger }));
    await localTriggerSync(store).sync({
      owner: head.owner,
      workflowId: head.workflowId,
      name: head.name,
      enabled: true,
      deleted: false,
      trigger: trigger as never,
    });
    const clock = new FixedClock('2026-03-27T12:00:00.000Z');
    const executions = recordingExecutions();
    const deps = { store, executions, clock, ids: randomIds };
    const mine = async () => (await store.listRuns({ owner: head.owner, limit: 100 })).items;

    // Act: tick before the first firing (the scheduler starts owing nothing), then day by day, restarting in the middle.
    const first = startLocalScheduler(deps);
    await first.tick();
    clock.ms = Date.parse('2026-03-28T12:00:00.000Z');
    await first.tick();
    await first.tick();
    first.stop();
    const second = startLocalScheduler(deps);
    await second.tick();
    clock.ms = Date.parse('2026-03-30T12:00:00.000Z');
    await second.tick();
    await second.tick();

    // Assess
    const runs = await mine();
    const times = runs
      .map((run) => (run.trigger.type === 'schedule' ? run.trigger.scheduledTime : ''))
      .sort();
    expect(times).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-30T00:30:00.000Z']);
    expect(new Set(times).size).toBe(times.length);
    // Other tests' schedules share the index; count only this workflow's starts.
    expect(executions.started.filter((name) => runs.some((run) => run.runId === name))).toHaveLength(2);
    for (const run of runs)
      expect(run.trigger).toMatchObject({ type: 'schedule', scheduleName: `wf-${head.workflowId}` });
  });

  it('starts nothing for a disabled workflow', async () => {
    const trigger = { type: 'schedule', expression: 'rate(1 hour)', timezone: 'UTC' };
    const { head } = await seedWorkflow(store, minimalWorkflow({ trigger }));
    const sync = localTriggerSync(store);
    await sync.sync({
      owner: head.owner,
      workflowId: head.workflowId,
      name: head.name,
      enabled: true,
      deleted: false,
      trigger: trigger as never,
    });
    await sync.sync({
      owner: head.owner,
      workflowId: head.workflowId,
      name: head.name,
      enabled: false,
      deleted: false,
      trigger: trigger as never,
    });
    const clock = new FixedClock('2026-05-01T00:00:00.000Z');
    const scheduler = startLocalScheduler({
      store,
      executions: recordingExecutions(),
      clock,
      ids: randomIds,
    });
    await scheduler.tick();
    clock.advance(3 * 3600_000);
    await scheduler.tick();
    expect((await store.listRuns({ owner: head.owner })).items).toHaveLength(0);
  });
});
