/**
 * A run whose execution ended outside MarkFailed (MarkFailed throttled past its retries, an operator's
 * StopExecution, the execution's timeout or history limit) used to stay `running` for good. The execution-ended
 * rule (infra/constructs/execution-ended.ts) sends Step Functions' "Execution Status Change" event
 * (https://docs.aws.amazon.com/step-functions/latest/dg/eventbridge-integration.html) to the mark-failed
 * function, which ends the run when the execution is the run's current one. Driven through the real handler on
 * DynamoDB Local with the event shape AWS documents; the local runner emits no such events.
 */
import { describe, expect, it } from 'vitest';
import { createMarkFailedHandler } from '../../functions/mark-failed.ts';
import { handlerTelemetry } from '../../shared/runtime/telemetry.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const MACHINE = 'arn:aws:states:eu-west-1:123456789012:stateMachine:wf-runs';
const arnOf = (name: string) => `arn:aws:states:eu-west-1:123456789012:execution:wf-runs:${name}`;

/** The event Step Functions sends when an execution ends (its input: the run pointer, as a JSON string). */
const endedEvent = (runId: string, status: string, name = runId) => ({
  version: '0',
  id: 'e2a1c6b0-0000-4000-8000-000000000000',
  source: 'aws.states',
  account: '123456789012',
  region: 'eu-west-1',
  'detail-type': 'Step Functions Execution Status Change',
  resources: [arnOf(name)],
  detail: {
    executionArn: arnOf(name),
    stateMachineArn: MACHINE,
    name,
    status,
    startDate: 1_700_000_000_000,
    stopDate: 1_700_000_100_000,
    input: JSON.stringify({ runId, turn: 2, segmentStartTurn: 0 }),
    inputDetails: { included: true },
    output: null,
    outputDetails: null,
  },
});

function harness() {
  const answered: string[] = [];
  const handler = createMarkFailedHandler(
    () => ({
      store,
      clock: new FixedClock(),
      answerParent: async (run: Run) => answered.push(run.runId),
    }),
    handlerTelemetry(),
  );
  return { handler, answered };
}

/** A run in flight (`running`), optionally a graph step's child or with a recorded execution. */
async function runningRun(extra: Partial<Run> = {}): Promise<Run> {
  const { version } = await seedWorkflow(store, minimalWorkflow());
  const created = await seedRun(store, version);
  return store.commit({ run: created, next: { ...created, status: 'running', ...extra } });
}

describe('Function: mark-failed, on an execution-ended event', () => {
  it.each(['FAILED', 'ABORTED', 'TIMED_OUT'])(
    'ends a running run failed when its current execution ended %s, with its audit entry',
    async (status) => {
      const run = await runningRun();
      const { handler } = harness();

      const answer = await handler(endedEvent(run.runId, status));

      const stored = await store.getRun(run.runId);
      expect(answer).toEqual({ status: 'failed' });
      expect(stored).toMatchObject({ status: 'failed', stopReason: 'error' });
      expect(stored?.error?.message).toContain(`ended ${status}`);
      const audit = await store.listAudit(run.runId);
      expect(audit.map((entry) => entry.type)).toEqual(expect.arrayContaining(['error', 'status_changed']));
      expect(audit.find((entry) => entry.type === 'status_changed')?.data).toMatchObject({
        from: 'running',
        to: 'failed',
      });
    },
  );

  it("answers the parent graph step's wait of a child run it ended", async () => {
    const run = await runningRun({ parent: { runId: 'run_parent0001', stepId: 'review', attempt: 1 } });
    const { handler, answered } = harness();

    await handler(endedEvent(run.runId, 'ABORTED'));

    expect(answered).toEqual([run.runId]);
  });

  it('ends a run whose continue-as-new execution ended (named <runId>-c<turn>-<hash>)', async () => {
    const run = await runningRun();
    const { handler } = harness();

    await handler(endedEvent(run.runId, 'FAILED', `${run.runId}-c500-0123456789abcdef0123456789abcdef`));

    expect((await store.getRun(run.runId))?.status).toBe('failed');
  });

  it('leaves a run whose current execution is another one (a late event for the execution it left)', async () => {
    const run = await runningRun({ executionArn: arnOf('reopened-execution') });
    const { handler, answered } = harness();

    const answer = await handler(endedEvent(run.runId, 'ABORTED'));

    const stored = await store.getRun(run.runId);
    expect(answer).toEqual({ status: undefined });
    expect(stored).toMatchObject({ status: 'running', rev: run.rev });
    expect(answered).toEqual([]);
  });

  it('changes nothing for a run that already ended (its MarkFailed ran: the usual FAILED event)', async () => {
    const run = await runningRun();
    const done = await store.commit({ run, next: { ...run, status: 'failed', stopReason: 'error' } });
    const { handler, answered } = harness();

    const answer = await handler(endedEvent(run.runId, 'FAILED'));

    expect(answer).toEqual({ status: undefined });
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'failed', rev: done.rev });
    expect(answered).toEqual([]);
  });

  it.each(['failed', 'denied', 'done'] as const)(
    'answers again the parent graph step of a child run its turn ended %s, whose Deliver or MarkFailed failed for good (FAILED)',
    async (status) => {
      // Prepare: the turn ended the run; the task that answers the parent step never finished.
      const run = await runningRun({ parent: { runId: 'run_parent0002', stepId: 'triage', attempt: 1 } });
      const ended = await store.commit({ run, next: { ...run, status, stopReason: 'end_turn' } });
      const { handler, answered } = harness();

      // Act
      const answer = await handler(endedEvent(run.runId, 'FAILED'));

      // Assess: the run stays as its turn left it; its parent step is answered.
      expect(answer).toEqual({ status: undefined });
      expect(await store.getRun(run.runId)).toMatchObject({ status, rev: ended.rev });
      expect(answered).toEqual([run.runId]);
    },
  );

  it('answers no parent for a late event of an execution the child run left', async () => {
    const run = await runningRun({
      parent: { runId: 'run_parent0003', stepId: 'triage', attempt: 1 },
      executionArn: arnOf('reopened-execution'),
    });
    await store.commit({ run, next: { ...run, status: 'failed', stopReason: 'error' } });
    const { handler, answered } = harness();

    await handler(endedEvent(run.runId, 'FAILED'));

    expect(answered).toEqual([]);
  });

  it('leaves an external run to its own handler (its engine must be asked to cancel first)', async () => {
    const run = await runningRun();
    const external = await store.commit({ run, next: { ...run, kind: 'external' } as Run });
    const { handler } = harness();

    await handler(endedEvent(run.runId, 'FAILED'));

    expect(await store.getRun(run.runId)).toMatchObject({ status: 'running', rev: external.rev });
  });
});
