/**
 * One invocation's evaluation steps span every decision it makes (InvocationSteps, shared/graph/expression-bounds.ts):
 * a decision made again after a write conflict (Advance, a service step, a human task's wait) gets a fresh
 * allowance of its own, so it stops at the same edge as it would alone, but draws from what the tries before it
 * left of EXPRESSION_LIMITS.maxStepsPerInvocation. Past that, the invocation fails InvocationStepsSpentError and
 * records nothing from the decision it was making. A store that loses its first commits makes the tries.
 */
import { describe, expect, it } from 'vitest';
import { RunConflictError } from '../../shared/core/store-errors.ts';
import type { RunChange } from '../../shared/core/store-port.ts';
import {
  compileExpression,
  EXPRESSION_LIMITS,
  evaluateExpression,
  InvocationStepsSpentError,
  invocationSteps,
  OVER_BUDGET,
} from '../../shared/graph/index.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import type { HumanTaskRequest } from '../../shared/graph-run/human-task-port.ts';
import { runServiceStep } from '../../shared/graph-run/service-step.ts';
import { startHumanTaskWait } from '../../shared/graph-run/wait.ts';
import { actionCatalogFor } from '../../shared/runtime/engine-deps.ts';
import { FixedClock, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';
import { reviewGraph } from './fixtures.ts';

const store = testStore();

/** An expression of ~151,000 steps (under the 250,000 of one evaluation): two do not fit in 300,000. */
const heavy = (rounds: number) =>
  `$sum($map([1..${rounds}], function($v){ $sum($map([1..1000], function($w){ $w })) })) > 0`;

/** The store, its first `conflicts` commits lost to a concurrent writer (nothing written). */
function conflicting(conflicts: number) {
  const lost: number[] = [];
  const wrapped = withStoreOverrides(store, {
    commit: async (change: RunChange) => {
      if (lost.length < conflicts) {
        lost.push(change.run.rev);
        throw new RunConflictError(change.run.runId, change.run.rev);
      }
      return store.commit(change);
    },
  });
  return { store: wrapped, lost };
}

const compiled = (source: string) => {
  const found = compileExpression(source);
  if (!found.ok) throw new Error(found.error.message);
  return found.value;
};

describe("one invocation's steps", () => {
  const data = { input: { x: 1 } };

  it('give each decision its own allowance, so a decision alone over it fails GRAPH_CONDITIONS_OVER_BUDGET as before', async () => {
    const invocation = invocationSteps();
    const first = invocation.decision();
    expect(await evaluateExpression(compiled(heavy(150)), data, first)).toEqual({ ok: true, value: true });
    const alone = invocationSteps().decision();
    await evaluateExpression(compiled(heavy(150)), data, alone);
    const over = await evaluateExpression(compiled(heavy(150)), data, alone);
    expect(over).toMatchObject({ ok: false, error: { code: OVER_BUDGET } });
    expect(invocation.total).toBe(EXPRESSION_LIMITS.maxStepsPerInvocation);
  });

  it('throw InvocationStepsSpentError, never an outcome, when the decisions before took the rest', async () => {
    const invocation = invocationSteps();
    const first = invocation.decision();
    await evaluateExpression(compiled(heavy(150)), data, first);
    const second = invocation.decision();
    // Alone, the second decision would fit (its own count starts at 0): not an expression error, a throw.
    await expect(evaluateExpression(compiled(heavy(150)), data, second)).rejects.toThrow(
      InvocationStepsSpentError,
    );
    expect(second.used).toBeLessThanOrEqual(second.total);
    expect(invocation.used).toBe(EXPRESSION_LIMITS.maxStepsPerInvocation + 1);
  });
});

/** start → work when `when` → done; `work` a service step whose args are `args`. */
const serviceGraph = (name: string, when: string, args: Record<string, unknown> = {}) => ({
  kind: 'graph',
  name,
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'work', type: 'service_task', action: 'current_time', args },
    { id: 'done', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'work', when },
    { from: 'work', to: 'done' },
  ],
});

async function seeded(definition: Record<string, unknown>) {
  const clock = new FixedClock();
  const { version } = await seedWorkflow(store, definition, { clock });
  const run = await seedRun(store, version, { clock, input: { x: 1 } });
  return { clock, run };
}

describe('Advance, deciding again after write conflicts', () => {
  it('decides as before while the tries fit: four lost commits, the fifth decision starts the step', async () => {
    const { clock, run } = await seeded(serviceGraph('cheap-conflicts', 'input.x > 0'));
    const s = conflicting(4);
    const next = await advanceGraphRun(
      { store: s.store, definitionOf: graphDefinitions(store), clock },
      run.runId,
    );
    expect(s.lost).toHaveLength(4);
    expect(next).toMatchObject({ next: 'service', step: { stepId: 'work', attempt: 1 } });
  });

  it('fails InvocationStepsSpentError when the tries together pass the allowance; nothing is written', async () => {
    // One decision takes ~151,000 steps: alone it fits, twice it does not.
    const { clock, run } = await seeded(serviceGraph('heavy-conflict', heavy(150)));
    const fits = conflicting(0);
    const deps = { definitionOf: graphDefinitions(store), clock };
    const s = conflicting(1);
    await expect(advanceGraphRun({ ...deps, store: s.store }, run.runId)).rejects.toThrow(
      InvocationStepsSpentError,
    );
    expect(s.lost).toHaveLength(1);
    const after = await store.loadGraphRun(run.runId);
    expect(after?.run.rev).toBe(run.rev);
    expect(after?.steps).toEqual([]);
    // A fresh invocation (no conflict) decides it: the step starts.
    expect(await advanceGraphRun({ ...deps, store: fits.store }, run.runId)).toMatchObject({
      next: 'service',
      step: { stepId: 'work' },
    });
  });
});

describe('a service step, trying again after a write conflict', () => {
  it('renders its args again from what the first try left: past the allowance, InvocationStepsSpentError before any call', async () => {
    const { clock, run } = await seeded(
      serviceGraph('heavy-args', 'input.x > 0', { heavy: `{{ ${heavy(150)} }}` }),
    );
    const definitionOf = graphDefinitions(store);
    const next = await advanceGraphRun({ store, definitionOf, clock }, run.runId);
    expect(next).toMatchObject({ next: 'service', step: { stepId: 'work' } });
    const ref = (next as { step: Parameters<typeof runServiceStep>[1] }).step;
    const s = conflicting(1);
    const deps = {
      store: s.store,
      definitionOf,
      clock,
      actions: actionCatalogFor(store),
      egress: { fetch: async () => new Response('unused') },
      secrets: { get: async () => undefined },
    } as unknown as Parameters<typeof runServiceStep>[0];
    await expect(runServiceStep(deps, ref)).rejects.toThrow(InvocationStepsSpentError);
    expect(s.lost).toHaveLength(1);
    const after = await store.loadGraphRun(run.runId, { ledger: true });
    expect(after?.ledger).toEqual([]);
    expect(after?.steps.find((step) => step.stepId === 'work')).toBeUndefined();
  });
});

describe("a human task's wait, trying again after a write conflict", () => {
  it('evaluates its context again from what the first try left: past the allowance, nothing is requested', async () => {
    const definition = reviewGraph('heavy-context', 'manager@example.com', { context: [heavy(150)] });
    const { clock, run } = await seeded(definition);
    const definitionOf = graphDefinitions(store);
    expect(await advanceGraphRun({ store, definitionOf, clock }, run.runId)).toMatchObject({ next: 'steps' });
    const requested: HumanTaskRequest[] = [];
    const humanTasks = {
      request: async (task: HumanTaskRequest) => {
        requested.push(task);
      },
      close: async () => {},
    };
    const wait = {
      runId: run.runId,
      stepId: 'review',
      type: 'human_task' as const,
      attempt: 1,
      taskToken: 't1',
    };
    const s = conflicting(1);
    await expect(
      startHumanTaskWait({ store: s.store, definitionOf, clock, humanTasks }, wait),
    ).rejects.toThrow(InvocationStepsSpentError);
    expect(s.lost).toHaveLength(1);
    expect(requested).toEqual([]);
    // Without the conflict, one try: the context fits and the task is requested.
    expect(await startHumanTaskWait({ store, definitionOf, clock, humanTasks }, wait)).toBe(
      'human_task_requested',
    );
    expect(requested.map((task) => task.context)).toEqual([{ [heavy(150)]: true }]);
  });
});
