/**
 * A trigger that could not start its run waits in the trigger dead-letter queue up to 14 days
 * (infra/constructs/trigger-dead-letters.ts), and redriving it re-invokes start-run with the same scheduled
 * time or event id. Before, every marker expired after 7 days, so a trigger redriven on day 8 whose run had
 * started after all started a second run. Now a schedule's or an event's marker outlives the queue; an API
 * key's window stays a week (docs/api.md).
 */
import { describe, expect, it } from 'vitest';
import type { ExecutionsPort } from '../../shared/runs/ports.ts';
import { idempotencyFor, startRun } from '../../shared/runs/start-run.ts';
import type { TriggerProvenance } from '../../shared/schemas/run.ts';
import {
  FixedClock,
  minimalWorkflow,
  randomIds,
  seedWorkflow,
  testPlanning,
  testStore,
} from '../support/store.ts';

const store = testStore();
const DAY_MS = 24 * 3600 * 1000;

const executions: ExecutionsPort = {
  start: async (name) => ({ executionArn: `arn:aws:states:us-east-1:111122223333:execution:runs:${name}` }),
  stop: async () => {},
};

async function startTwice(trigger: TriggerProvenance, apiKey: string | undefined, afterDays: number) {
  const clock = new FixedClock();
  const { head } = await seedWorkflow(store, minimalWorkflow(), { clock });
  const deps = { store, executions, clock, ids: randomIds, firstTurn: testPlanning(store) };
  const idempotency = idempotencyFor(trigger, head.workflowId, apiKey);
  const request = {
    owner: head.owner,
    workflowId: head.workflowId,
    trigger,
    actor: 'system',
    ...(idempotency === undefined ? {} : { idempotency }),
  };
  const first = await startRun(deps, request);
  clock.advance(afterDays * DAY_MS);
  const again = await startRun(deps, request);
  return { first, again };
}

describe('Idempotency window of trigger-started runs', () => {
  it('an event redriven 8 days later returns the run it started', async () => {
    // Act
    const { first, again } = await startTwice(
      { type: 'event', eventId: 'evt-redriven', source: 'app.orders', detailType: 'OrderPlaced' },
      undefined,
      8,
    );

    // Assess
    expect(first.created).toBe(true);
    expect(again).toEqual({ run: first.run, created: false });
  });

  it("a schedule redriven on the queue's last day (14 days) returns the run it started", async () => {
    // Act
    const { first, again } = await startTwice(
      { type: 'schedule', scheduleName: 'wf-nightly', scheduledTime: '2026-11-30T07:00:00Z' },
      undefined,
      14,
    );

    // Assess
    expect(again).toEqual({ run: first.run, created: false });
  });

  it('an API Idempotency-Key still holds for a week only', async () => {
    // Act
    const { first, again } = await startTwice({ type: 'on_demand', caller: 'test' }, 'key-8-days', 8);

    // Assess
    expect(again.created).toBe(true);
    expect(again.run.runId).not.toBe(first.run.runId);
  });
});
