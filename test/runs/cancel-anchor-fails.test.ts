/**
 * A cancel whose anchoring fails, on the store (DynamoDB Local). The cancel commits the run `cancelled` first;
 * anchoring its final head (the owner's chain, then a signed head: shared/store/anchors.ts) comes after and may
 * fail (a contended chain past its rounds, KMS refusing to sign). Before, that failure was thrown out of
 * `endRun`, so the cancel never stopped the execution nor closed a graph's steps, and the client got a 5xx for a
 * cancel that was committed; a repeated cancel found the run `cancelled` and never stopped it either. Now the
 * anchor failure is reported and the cancel goes on; a repeated cancel stops the execution again (StopExecution
 * of an execution that already ended is not an error: ExecutionsPort.stop) and anchors the head it left.
 */
import { describe, expect, it } from 'vitest';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { unconfiguredHumanTasks } from '../../shared/graph-run/human-task-port.ts';
import { childRunIdFor, startStepWait } from '../../shared/graph-run/wait.ts';
import { CANCEL_ANCHOR_ATTEMPTS, cancelRun } from '../../shared/runs/cancel-run.ts';
import { endRunOfEndedExecution } from '../../shared/runs/execution-ended.ts';
import type { ExecutionsPort } from '../../shared/runs/ports.ts';
import type { Run } from '../../shared/schemas/run.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { apiHarness, RecordingExecutions } from '../api/helpers.ts';
import { aliceRunOf, graphRunDeps } from '../support/graph-fixtures.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

/** The store, with its next `failures` anchors refused (as a KMS refusal to sign would be); calls counted. */
function anchorFailing(inner: DynamoStore, failures = 1) {
  const calls: { runId: string; maxAttempts: number | undefined }[] = [];
  let left = failures;
  const wrapped = new Proxy(inner, {
    get(target, property) {
      if (property === 'anchorRunHead')
        return async (run: Run, at: string, options?: { maxAttempts?: number }) => {
          calls.push({ runId: run.runId, maxAttempts: options?.maxAttempts });
          if (left-- > 0)
            throw Object.assign(new Error('signing refused'), { name: 'KMSInvalidStateException' });
          return target.anchorRunHead(run, at, options);
        };
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: wrapped, calls };
}

describe('a cancel whose anchor fails', () => {
  it('still stops the execution, reports the deferred anchor, and a repeated cancel stops it again and anchors', async () => {
    // Prepare
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const { store: failing, calls } = anchorFailing(store);
    const executions = new RecordingExecutions();
    const deferred: { runId: string; error: string }[] = [];
    const deps = {
      store: failing,
      executions,
      clock: new FixedClock(),
      anchorDeferred: (ended: Run, error: unknown) =>
        void deferred.push({ runId: ended.runId, error: (error as Error).message }),
    };
    const args = { owner: run.owner, runId: run.runId, actor: `owner:${run.owner}` };

    // Act
    const cancelled = await cancelRun(deps, args);

    // Assess: committed, stopped, the anchor reported (bounded for the api's deadline), not anchored yet.
    expect(cancelled).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'cancelled' });
    expect(executions.stops.map((stop) => stop.executionArn)).toEqual([
      executions.arnOf(undefined, run.runId),
    ]);
    expect(deferred).toEqual([{ runId: run.runId, error: 'signing refused' }]);
    expect(calls).toEqual([{ runId: run.runId, maxAttempts: CANCEL_ANCHOR_ATTEMPTS }]);
    expect(await store.getRunAnchor(run.owner, run.runId)).toBeUndefined();

    // Act: the client repeats the cancel.
    const again = await cancelRun(deps, args);

    // Assess: the same run; its execution stopped again (a no-op if it ended); its final head anchored now.
    expect(again).toMatchObject({ status: 'cancelled', rev: cancelled!.rev });
    expect(executions.stops).toHaveLength(2);
    const anchor = await store.getRunAnchor(run.owner, run.runId);
    expect(anchor).toMatchObject({ runId: run.runId, runHead: again!.audit.head });
  });

  it("is anchored by the stopped execution's ABORTED event when the client does not repeat the cancel", async () => {
    // Prepare
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const { store: failing } = anchorFailing(store);
    const executions = new RecordingExecutions();
    const deps = { store: failing, executions, clock: new FixedClock(), anchorDeferred: () => undefined };
    const cancelled = await cancelRun(deps, { owner: run.owner, runId: run.runId, actor: 'owner:x' });
    expect(await store.getRunAnchor(run.owner, run.runId)).toBeUndefined();
    const name = run.runId;
    const machine = 'arn:aws:states:local:000000000000:stateMachine:wf-runs';

    // Act: mark-failed's execution-ended rule delivers the stop's event.
    const answered = await endRunOfEndedExecution(
      { store, clock: new FixedClock() },
      {
        runId: run.runId,
        status: 'ABORTED',
        executionArn: executions.arnOf(undefined, name)!,
        stateMachineArn: machine,
        name,
      },
    );

    // Assess: the run ended by its cancel (not here), nothing else written, the head anchored.
    expect(answered).toMatchObject({ endedHere: false, run: { status: 'cancelled', rev: cancelled!.rev } });
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'cancelled', rev: cancelled!.rev });
    expect(await store.getRunAnchor(run.owner, run.runId)).toMatchObject({ runHead: cancelled!.audit.head });
  });

  it('fails the call by default (MarkFailed: Step Functions retries it), the ending committed', async () => {
    // Prepare
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const { store: failing } = anchorFailing(store);
    const { markRunFailed } = await import('../../shared/core/mark-failed.ts');

    // Act
    const outcome = await markRunFailed(
      { store: failing, clock: new FixedClock() },
      { runId: run.runId, error: { name: 'States.TaskFailed', message: 'boom' } },
    ).catch((error: unknown) => error);

    // Assess
    expect(outcome).toMatchObject({ message: 'signing refused' });
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'failed' });
    // Its retry finds the run ended and anchors it.
    await markRunFailed({ store: failing, clock: new FixedClock() }, { runId: run.runId });
    expect(await store.getRunAnchor(run.owner, run.runId)).toBeDefined();
  });
});

const graph = {
  kind: 'graph',
  name: 'one-agent-step',
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
  nodes: [
    { id: 'start', type: 'start' },
    {
      id: 'triage',
      type: 'agent_task',
      model: { id: 'claude-fable-5', maxTokens: 1000 },
      system: 'Answer in one line.',
      prompt: 'Triage {{ input.branch }}',
      limits: { maxTurns: 1 },
    },
    { id: 'done', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'triage' },
    { from: 'triage', to: 'done' },
  ],
};

describe('a graph cancel whose anchor fails', () => {
  const h = apiHarness();
  const AGENT = 'arn:aws:states:local:0:execution:agent';
  const GRAPH = 'arn:aws:states:local:0:execution:graph';

  it('cancels the child run and closes the step all the same', async () => {
    // Prepare: a graph run whose agent step runs a child run.
    const run = await aliceRunOf(h, graph);
    const stopped: string[] = [];
    const executions: ExecutionsPort = {
      start: async (name) => ({ executionArn: `${AGENT}:${name}` }),
      stop: async (arn) => void stopped.push(arn),
      arnOf: (kind, name) => `${kind === 'graph' ? GRAPH : AGENT}:${name}`,
      graph: { start: async (name) => ({ executionArn: `${GRAPH}:${name}` }) },
    };
    const graphDeps = graphRunDeps(h, executions, unconfiguredHumanTasks);
    await advanceGraphRun(graphDeps, run.runId);
    const waited = { runId: run.runId, stepId: 'triage', type: 'agent_task' as const, attempt: 1 };
    expect(await startStepWait(graphDeps, { ...waited, taskToken: 'triage' })).toBe('child_started');
    const child = childRunIdFor(run.runId, 'triage', 1);
    // The graph run's own anchor (its cancel's first) is refused.
    const { store: failing } = anchorFailing(h.store);
    const deps = {
      store: failing,
      executions,
      clock: h.clock,
      graph: { taskTokens: { sendSuccess: async () => undefined }, humanTasks: unconfiguredHumanTasks },
      anchorDeferred: () => undefined,
    };

    // Act
    const cancelled = await cancelRun(deps, {
      owner: h.owners.alice,
      runId: run.runId,
      actor: `owner:${h.owners.alice}`,
    });

    // Assess
    expect(cancelled).toMatchObject({ status: 'cancelled' });
    expect(stopped).toEqual([`${GRAPH}:${run.runId}`, `${AGENT}:${child}`]);
    expect(await h.store.getRun(child)).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    const loaded = await h.store.loadGraphRun(run.runId);
    expect(loaded?.steps.find((step) => step.stepId === 'triage')).toMatchObject({ status: 'cancelled' });
    // The step moves came after the cancel: the graph run's final head is anchored with them.
    expect(await h.store.getRunAnchor(h.owners.alice, run.runId)).toMatchObject({
      runHead: loaded?.run.audit.head,
    });
  });
});
