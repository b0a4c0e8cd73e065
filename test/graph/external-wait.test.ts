/**
 * An external step's wait on the store (DynamoDB Local), without a state machine: Advance starts the step with
 * its rendered payload; the wait creates one child run of the external kind (parent pointer, the payload as its
 * input, bound to the graph's version) and starts it on the external machine, and a retried wait finds the same
 * child; the wait's backstop timeout fails the step and asks the child to cancel its engine's execution.
 */
import { describe, expect, it } from 'vitest';
import { prepareRun } from '../../shared/core/new-run.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { completeStep } from '../../shared/graph-run/complete-step.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import { unconfiguredHumanTasks } from '../../shared/graph-run/human-task-port.ts';
import { childRunIdFor, startStepWait } from '../../shared/graph-run/wait.ts';
import { humanTaskExpiry } from '../../shared/human-tasks/expiry.ts';
import type { ExecutionsPort } from '../../shared/runs/ports.ts';
import { apiHarness } from '../api/helpers.ts';
import { randomIds } from '../support/store.ts';

const graph = {
  kind: 'graph',
  name: 'nightly-graph',
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
  nodes: [
    { id: 'start', type: 'start' },
    {
      id: 'build',
      type: 'external_task',
      engine: 'http-runtime',
      mode: 'live',
      payload: { branch: '{{ input.branch }}', n: '{{ input.n }}' },
      timeoutSeconds: 600,
    },
    { id: 'done', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'build' },
    { from: 'build', to: 'done' },
  ],
};

describe('an external step on the store', () => {
  const h = apiHarness();

  /** A graph run whose `build` step is an external task, with executions that record each start. */
  async function externalStepRun(derivedArns = false) {
    const saved = await h.alice.post('/v1/workflows', {
      ...graph,
      name: `${graph.name}${derivedArns ? '-derived' : ''}`,
    });
    expect(saved.status).toBe(201);
    const version = await h.store.getWorkflowVersion(h.owners.alice, saved.body.workflow.workflowId, 1);
    const prepared = prepareRun({
      version: version!,
      trigger: { type: 'on_demand', caller: 'alice' },
      input: { branch: 'main', n: 3 },
      clock: h.clock,
      ids: randomIds,
      actor: `owner:${h.owners.alice}`,
    });
    const { run } = await h.store.createRun(prepared);
    const starts: { name: string; runId: string }[] = [];
    const executions: ExecutionsPort = {
      ...(derivedArns
        ? { arnOf: (_kind: unknown, name: string) => `arn:aws:states:local:0:execution:external:${name}` }
        : {}),
      start: async () => ({ executionArn: 'arn:agent' }),
      stop: async () => undefined,
      external: {
        start: async (name, pointer) => {
          starts.push({ name, runId: pointer.runId });
          return { executionArn: `arn:aws:states:local:0:execution:external:${name}` };
        },
      },
    };
    const deps = {
      store: h.store,
      definitionOf: graphDefinitions(h.store),
      clock: h.clock,
      ids: randomIds,
      executions,
      humanTasks: unconfiguredHumanTasks,
      // The child run is started, never answered here: an answer would be a defect of this path.
      answer: async () => {
        throw new Error('the external step wait answered its own token');
      },
    };

    return { run, deps, starts };
  }

  it('starts one child external run per attempt; the backstop timeout fails the step and cancels the child', async () => {
    const { run, deps, starts } = await externalStepRun();
    // Advance: the step runs with the payload rendered (a whole {{ }} keeps its type); the wait's timeout is a backstop.
    const next = await advanceGraphRun(deps, run.runId);
    expect(next).toEqual({
      next: 'steps',
      steps: [{ runId: run.runId, stepId: 'build', type: 'external_task', attempt: 1, timeoutSeconds: 900 }],
    });

    // The wait, twice (a retried Lambda): one child run, one execution start.
    const ref = { runId: run.runId, stepId: 'build', type: 'external_task' as const, attempt: 1 };
    expect(await startStepWait(deps, { ...ref, taskToken: 'token-1' })).toBe('child_started');
    expect(await startStepWait(deps, { ...ref, taskToken: 'token-2' })).toBe('child_started');
    const childRunId = childRunIdFor(run.runId, 'build', 1);
    expect(starts).toEqual([{ name: childRunId, runId: childRunId }]);
    const child = await h.store.getRun(childRunId);
    expect(child).toMatchObject({
      kind: 'external',
      owner: h.owners.alice,
      workflowId: run.workflowId,
      workflowVersion: 1,
      status: 'pending',
      input: { branch: 'main', n: 3 },
      parent: { runId: run.runId, stepId: 'build', attempt: 1 },
      external: { engine: 'http-runtime', mode: 'live', observes: 0 },
    });
    // Its deadline is the node's timeout, not the graph's.
    expect(Date.parse(child!.deadlineAt) - Date.parse(child!.createdAt)).toBe(600_000);
    const waiting = (await h.store.loadGraphRun(run.runId))!.steps.find((step) => step.stepId === 'build');
    expect(waiting).toMatchObject({ status: 'waiting', taskToken: 'token-2', childRunId });

    // The backstop fires: the step fails TimedOut and the child is asked to cancel (its Observe does it).
    const humanTasks = humanTaskExpiry({ store: h.store, clock: h.clock });
    const status = await completeStep(
      { ...deps, humanTasks },
      { ...ref, error: { Error: 'States.Timeout' } },
    );
    expect(status).toBe('failed');
    const failed = (await h.store.loadGraphRun(run.runId))!.steps.find((step) => step.stepId === 'build');
    expect(failed).toMatchObject({ status: 'failed', error: { name: 'TimedOut' } });
    expect(failed?.taskToken).toBeUndefined();
    expect((await h.store.getRun(childRunId))?.external?.cancelRequested).toMatchObject({ by: 'system' });
  });

  it("records no ARN for a child its port derives the ARN of: no write after the start to race the child's first commit", async () => {
    const { run, deps, starts } = await externalStepRun(true);
    await advanceGraphRun(deps, run.runId);
    const ref = { runId: run.runId, stepId: 'build', type: 'external_task' as const, attempt: 1 };
    const childRunId = childRunIdFor(run.runId, 'build', 1);
    expect(await startStepWait(deps, { ...ref, taskToken: 'token-1' })).toBe('child_started');
    const child = await h.store.getRun(childRunId);
    const created = child?.rev;
    expect(child?.executionArn).toBeUndefined();
    expect(child?.rev).toBe(created);
    // A retried wait finds the child still pending: started again by the same name (idempotent), nothing written.
    expect(await startStepWait(deps, { ...ref, taskToken: 'token-2' })).toBe('child_started');
    expect(starts).toEqual([
      { name: childRunId, runId: childRunId },
      { name: childRunId, runId: childRunId },
    ]);
    expect((await h.store.getRun(childRunId))?.rev).toBe(created);
  });
});
