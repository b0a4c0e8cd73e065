/**
 * A graph run that failed with steps still running (MarkGraphFailed), on the store (DynamoDB Local): each open
 * step's child run is cancelled through the owner's cancel path — an agent child ended `cancelled`, an external
 * child's engine cancel requested (its own execution asks the engine), a human task closed — and each step is
 * recorded `cancelled`
 * with what was asked of its child and what is not known yet. A run that did not fail is left alone; a second
 * call changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { cancelChildrenOfFailedGraph } from '../../shared/graph-run/end-children.ts';
import { unconfiguredHumanTasks } from '../../shared/graph-run/human-task-port.ts';
import { childRunIdFor, startStepWait } from '../../shared/graph-run/wait.ts';
import type { ExecutionsPort } from '../../shared/runs/ports.ts';
import { apiHarness } from '../api/helpers.ts';
import { aliceRunOf, graphRunDeps, TRIAGE_AGENT_STEP } from '../support/graph-fixtures.ts';

const graph = {
  kind: 'graph',
  name: 'open-steps',
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
  nodes: [
    { id: 'start', type: 'start' },
    TRIAGE_AGENT_STEP,
    {
      id: 'build',
      type: 'external_task',
      engine: 'http-runtime',
      mode: 'live',
      payload: { branch: '{{ input.branch }}' },
      timeoutSeconds: 600,
    },
    {
      id: 'review',
      type: 'human_task',
      title: 'Review',
      assignees: ['manager@example.com'],
      form: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
      timeoutSeconds: 600,
    },
    { id: 'done', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'triage' },
    { from: 'start', to: 'build' },
    { from: 'start', to: 'review' },
    { from: 'triage', to: 'done' },
    { from: 'build', to: 'done' },
    { from: 'review', to: 'done' },
  ],
};

describe("a failed graph run's running children", () => {
  const h = apiHarness();

  /** `arnOf` as on Step Functions (graph-wait records the agent child's first execution), stops recorded. */
  const AGENT_MACHINE = 'arn:aws:states:local:0:execution:agent';
  const stopped: { arn: string; cause: string }[] = [];
  const recording = {
    arnOf: (_kind: unknown, name: string) => `${AGENT_MACHINE}:${name}`,
    stop: async (arn: string, cause: string) => void stopped.push({ arn, cause }),
  };

  let saves = 0;
  async function graphWithOpenSteps(derive?: Pick<ExecutionsPort, 'arnOf'>) {
    const run = await aliceRunOf(h, { ...graph, name: `open-steps-${++saves}` });
    const executions: ExecutionsPort = {
      start: async (name) => ({ executionArn: `arn:aws:states:local:0:execution:agent:${name}` }),
      stop: async () => undefined,
      ...derive,
      external: {
        start: async (name) => ({ executionArn: `arn:aws:states:local:0:execution:external:${name}` }),
      },
    };
    const deps = graphRunDeps(h, executions, unconfiguredHumanTasks);
    await advanceGraphRun(deps, run.runId);
    for (const [stepId, type] of [
      ['triage', 'agent_task'],
      ['build', 'external_task'],
    ] as const)
      expect(
        await startStepWait(deps, { runId: run.runId, stepId, type, attempt: 1, taskToken: stepId }),
      ).toBe('child_started');
    return run.runId;
  }

  it('cancels each child through the owner cancel path and records the steps cancelled with what was asked', async () => {
    const runId = await graphWithOpenSteps();
    const closed: unknown[] = [];
    const deps = {
      store: h.store,
      clock: h.clock,
      humanTasks: {
        closeFailed: async (step: unknown, reason: string) => void closed.push({ step, reason }),
      },
    };
    // Not failed (still running): nothing is cancelled.
    expect(await cancelChildrenOfFailedGraph(deps, runId)).toEqual([]);
    await markRunFailed(deps, { runId, error: { name: 'States.TaskFailed', message: 'a sibling broke' } });

    const asked = await cancelChildrenOfFailedGraph(deps, runId);

    const agentChild = childRunIdFor(runId, 'triage', 1);
    const externalChild = childRunIdFor(runId, 'build', 1);
    expect(asked).toEqual(
      expect.arrayContaining([
        { stepId: 'triage', childRunId: agentChild, kind: 'agent', asked: 'cancelled' },
        expect.objectContaining({
          stepId: 'build',
          childRunId: externalChild,
          asked: 'engine_cancel_requested',
        }),
        { stepId: 'review', asked: 'task_closed' },
      ]),
    );
    expect(closed).toEqual([
      { step: { runId, stepId: 'review', attempt: 1 }, reason: 'the graph run failed' },
    ]);
    expect(await h.store.getRun(agentChild)).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    const external = await h.store.getRun(externalChild);
    // Pending or running, its own execution ends it: Start (nothing dispatched) or Observe (the engine asked).
    expect(external?.status).toBe('pending');
    expect(external?.external?.cancelRequested).toMatchObject({ by: 'system' });
    const loaded = await h.store.loadGraphRun(runId);
    expect(loaded?.run.status).toBe('failed');
    for (const stepId of ['triage', 'build', 'review'])
      expect(loaded?.steps.find((step) => step.stepId === stepId)).toMatchObject({ status: 'cancelled' });
    expect(loaded?.steps.find((step) => step.stepId === 'build')?.taskToken).toBeUndefined();
    const entries = await h.store.listAudit(runId);
    const moved = entries.filter((entry) => entry.type === 'step_changed' && entry.data.to === 'cancelled');
    expect(moved.map((entry) => entry.data.child)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          stepId: 'build',
          unknown: expect.stringContaining('whether the engine stopped'),
        }),
        expect.objectContaining({ stepId: 'triage', asked: 'cancelled' }),
      ]),
    );

    // Again (a retried MarkGraphFailed): nothing left open, nothing written.
    const rev = loaded?.run.rev;
    await cancelChildrenOfFailedGraph(deps, runId);
    expect((await h.store.getRun(runId))?.rev).toBe(rev);
  });

  it("stops an agent child's current execution: the first one its step recorded, or the continuation the child recorded", async () => {
    // Prepare: two failed graphs; in the second, the child continued as new (its first turn recorded it).
    const plain = await graphWithOpenSteps(recording);
    const continued = await graphWithOpenSteps(recording);
    const continuedChild = childRunIdFor(continued, 'triage', 1);
    const child = await h.store.getRun(continuedChild);
    await h.store.commit({
      run: child!,
      next: { ...child!, status: 'running', continuedAs: 'c500-0123abcd' },
    });
    const deps = { store: h.store, clock: h.clock, executions: recording };
    for (const runId of [plain, continued])
      await markRunFailed(deps, { runId, error: { name: 'States.TaskFailed', message: 'a sibling broke' } });
    stopped.length = 0;

    // Act
    await cancelChildrenOfFailedGraph(deps, plain);
    await cancelChildrenOfFailedGraph(deps, continued);

    // Assess: each agent child's live execution is stopped once; external children are asked through their runs.
    const plainChild = childRunIdFor(plain, 'triage', 1);
    expect((await h.store.loadGraphRun(plain))?.steps.find((s) => s.stepId === 'triage')).toMatchObject({
      status: 'cancelled',
      childExecutionArn: `${AGENT_MACHINE}:${plainChild}`,
    });
    expect(stopped).toEqual([
      { arn: `${AGENT_MACHINE}:${plainChild}`, cause: 'the graph run failed' },
      { arn: `${AGENT_MACHINE}:${continuedChild}-c500-0123abcd`, cause: 'the graph run failed' },
    ]);
    expect(await h.store.getRun(continuedChild)).toMatchObject({ status: 'cancelled' });

    // Again (a retried MarkGraphFailed): the children ended, nothing is stopped twice.
    await cancelChildrenOfFailedGraph(deps, plain);
    expect(stopped).toHaveLength(2);
  });
});
