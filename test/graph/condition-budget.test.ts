/**
 * The step allowance of one invocation (EXPRESSION_LIMITS.maxStepsPerInvocation, StepAllowance): readiness()
 * evaluates the conditions in edge order against it; where it runs out, that edge and the conditional edges
 * after it stay open and one `GRAPH_CONDITIONS_OVER_BUDGET` error halts the run. Real JSONata, small allowances.
 */
import { describe, expect, it } from 'vitest';
import {
  compileExpression,
  EXPRESSION_LIMITS,
  evaluateExpression,
  type GraphNode,
  type GraphShape,
  invocationAllowance,
  OVER_BUDGET,
  type RunData,
  readiness,
  renderValue,
  StepAllowance,
} from '../../shared/graph/index.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import { renderPrompt } from '../../shared/graph-run/expressions.ts';
import { planRun } from '../../shared/graph-run/plan.ts';
import type { GraphStep } from '../../shared/schemas/graph-step.ts';
import { FixedClock, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { refundGraph } from './fixtures.ts';

/** `start` then one branch per condition, each out of its own step (so they are not alternatives of one node). */
function branches(...conditions: string[]): GraphShape {
  const nodes: GraphNode[] = [{ id: 'start', type: 'start' } as GraphNode];
  const edges: GraphShape['edges'] = [];
  conditions.forEach((when, i) => {
    nodes.push(
      { id: `s${i}`, type: 'service_task' } as GraphNode,
      { id: `end${i}`, type: 'end' } as GraphNode,
    );
    edges.push({ from: 'start', to: `s${i}` });
    edges.push({ from: `s${i}`, to: `end${i}`, when });
  });
  return { nodes, edges };
}

/** Every node but the ends succeeded: each conditional edge's source has succeeded, so each is evaluated. */
const allSucceeded = (graph: GraphShape, input: unknown = { x: 1 }): RunData => ({
  input,
  steps: Object.fromEntries(
    graph.nodes
      .filter((node) => node.type !== 'end')
      .map((node) => [node.id, { status: 'succeeded' as const, output: {} }]),
  ),
});

const cheap = 'input.x > 0';
/** A condition of ~151,000 steps (100,911 for 100 rounds, 1,020 for one), under the 250,000 of one evaluation. */
const heavy = (rounds: number) =>
  `$sum($map([1..${rounds}], function($v){ $sum($map([1..1000], function($w){ $w })) })) > 0`;

async function stepsOf(source: string, data: unknown): Promise<number> {
  const compiled = compileExpression(source);
  if (!compiled.ok) throw new Error(compiled.error.message);
  const allowance = new StepAllowance(Number.MAX_SAFE_INTEGER);
  await evaluateExpression(compiled.value, data, allowance);
  return allowance.used;
}

describe('the step allowance of readiness()', () => {
  const graph = branches(cheap, cheap, cheap);
  const data = allSucceeded(graph);

  it('decides every edge as before while the allowance lasts', async () => {
    const per = await stepsOf(cheap, data);
    const exact = new StepAllowance(3 * per);
    const within = await readiness(graph, data, exact);
    expect(within).toEqual(await readiness(graph, data));
    expect(within).toMatchObject({ edges: Array(6).fill('fired'), conditionErrors: [], outcome: 'running' });
    expect(exact.used).toBe(3 * per);
  });

  it('leaves the edge where it ran out and the conditional edges after it open, and halts naming the budget and that edge', async () => {
    const per = await stepsOf(cheap, data);
    // Runs out at the first step of edges[3] (nothing left), and in the middle of it (one step short).
    for (const total of [per, 2 * per - 1]) {
      const found = await readiness(graph, data, new StepAllowance(total));
      expect(found.edges).toEqual(['fired', 'fired', 'fired', 'open', 'fired', 'open']);
      expect(found.conditionErrors).toHaveLength(1);
      expect(found.conditionErrors[0]).toMatchObject({
        edge: 3,
        from: 's1',
        to: 'end1',
        error: { code: OVER_BUDGET },
      });
      expect(found.conditionErrors[0]!.error.message).toBe(
        `the conditions evaluated in one Advance took more than ${total} evaluation steps together ` +
          "(EXPRESSION_LIMITS.maxStepsPerInvocation); edges[3] 's1' → 'end1' and the conditional edges after it " +
          'were not decided. Simplify the conditions (fewer steps each: filter less data, compute a value once ' +
          'in a step) or split the graph into smaller workflows',
      );
      expect(found).toMatchObject({
        ready: [],
        skipped: [],
        outcome: 'failed',
        halt: { reason: 'condition_error', steps: ['s1'] },
      });
    }
  });

  it('stops at the same edge for the same data, every time', async () => {
    const heavyGraph = branches(cheap, heavy(100), cheap, heavy(100), cheap);
    const heavyData = allSucceeded(heavyGraph);
    const runs = await Promise.all(
      [1, 2, 3].map(() => readiness(heavyGraph, heavyData, new StepAllowance(150_000))),
    );
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
    expect(runs[0]!.conditionErrors.map((e) => [e.edge, e.error.code])).toEqual([[7, OVER_BUDGET]]);
    expect(runs[0]!.edges).toEqual([
      'fired',
      'fired',
      'fired',
      'fired',
      'fired',
      'fired',
      'fired',
      'open',
      'fired',
      'open',
    ]);
  });

  it('by default allows EXPRESSION_LIMITS.maxStepsPerInvocation: two conditions of ~151,000 steps do not both fit', async () => {
    const one = branches(heavy(150));
    expect((await readiness(one, allSucceeded(one))).conditionErrors).toEqual([]);
    const two = branches(heavy(150), heavy(150));
    const found = await readiness(two, allSucceeded(two));
    expect(found.conditionErrors.map((e) => [e.edge, e.error.code])).toEqual([[3, OVER_BUDGET]]);
    expect(found.edges).toEqual(['fired', 'fired', 'fired', 'open']);
    expect(EXPRESSION_LIMITS.maxStepsPerInvocation).toBe(300_000);
  });

  it("keeps each expression's own cap: a runaway condition fails GRAPH_TOO_MANY_STEPS within a larger allowance", async () => {
    const runaway = branches('($f := function($n){ $f($n + 1) }; $f(0))', cheap);
    const allowance = new StepAllowance(10 * EXPRESSION_LIMITS.maxSteps);
    const found = await readiness(runaway, allSucceeded(runaway), allowance);
    expect(found.conditionErrors.map((e) => [e.edge, e.error.code])).toEqual([[1, 'GRAPH_TOO_MANY_STEPS']]);
    // Its steps count towards the allowance too, and the edge after it is still decided.
    expect(allowance.used).toBe(EXPRESSION_LIMITS.maxSteps + 1 + (await stepsOf(cheap, { input: { x: 1 } })));
    expect(found.edges).toEqual(['fired', 'open', 'fired', 'fired']);
  });

  it('does not count edges whose source has not succeeded, nor edges without a condition', async () => {
    const found = await readiness(
      graph,
      { input: { x: 1 }, steps: { start: { status: 'succeeded' } } },
      new StepAllowance(0),
    );
    expect(found).toMatchObject({ conditionErrors: [], outcome: 'running' });
    expect(found.ready.map((step) => step.id).sort()).toEqual(['s0', 's1', 's2']);
  });
});

/** Every step of `graph` but its ends, succeeded with an empty output: the conditions out of them are due. */
const succeededBeforeTheEnds = (graph: GraphShape): GraphStep[] =>
  graph.nodes
    .filter((node) => node.type !== 'end')
    .map(
      (node) =>
        ({
          stepId: node.id,
          type: node.type,
          status: 'succeeded',
          attempt: 1,
          output: {},
        }) as unknown as GraphStep,
    );

describe('the allowance in an Advance decision', () => {
  it('halts with a message that names the budget and says what to do', async () => {
    const heavyGraph = branches(heavy(150), heavy(150));
    const steps = succeededBeforeTheEnds(heavyGraph);
    const definition = { ...heavyGraph } as Parameters<typeof planRun>[0];
    const plan = await planRun(definition, { x: 1 }, steps);
    expect(plan.halt?.reason).toBe('condition_error');
    expect(plan.halt?.message).toMatch(
      /^the conditions are over budget: the conditions evaluated in one Advance took more than 300000 evaluation steps together .*edges\[3\] 's1' → 'end1'.*split the graph/,
    );
  });

  it("draws the prompts of the steps it starts from what the conditions left (decideNext's allowance)", async () => {
    const heavyGraph = branches(heavy(150));
    const steps = succeededBeforeTheEnds(heavyGraph);
    const allowance = new StepAllowance(EXPRESSION_LIMITS.maxStepsPerInvocation);
    const plan = await planRun(heavyGraph as Parameters<typeof planRun>[0], { x: 1 }, steps, allowance);
    expect(plan.halt).toBeUndefined();
    const data = { input: { x: 1 }, steps: {} };
    await expect(renderPrompt('step s1 prompt', `{{ ${heavy(150)} }}`, data, allowance)).rejects.toThrow(
      'step s1 prompt: placeholder 0: the conditions and templates evaluated in one invocation took more than 300000',
    );
    // The same prompt alone fits.
    expect(await renderPrompt('step s1 prompt', `{{ ${heavy(150)} }}`, data, invocationAllowance())).toBe(
      'true',
    );
  });

  it('renders the strings of a value in order from one allowance: the same one runs out', async () => {
    const per = await stepsOf('input.x', { input: { x: 1 } });
    const value = { a: '{{ input.x }}', b: '{{ input.x }}', c: ['{{ input.x }}'] };
    expect(await renderValue(value, { input: { x: 1 } }, new StepAllowance(3 * per))).toEqual({
      ok: true,
      value: { a: 1, b: 1, c: [1] },
    });
    const over = await renderValue(value, { input: { x: 1 } }, new StepAllowance(2 * per));
    expect(over).toMatchObject({ ok: false, error: { code: OVER_BUDGET } });
    expect(over.ok ? '' : over.error.message).toBe(
      'placeholder 0: the conditions and templates evaluated in one invocation took more than 6 evaluation steps ' +
        'together (EXPRESSION_LIMITS.maxStepsPerInvocation); simplify them or split the graph',
    );
  });
});

describe('Advance over budget', () => {
  const store = testStore();
  const model = (refundGraph().nodes as { type: string; model?: unknown }[]).find(
    (node) => node.type === 'agent_task',
  )?.model;
  /** start → a or b (two alternatives, both false), start → think (an agent step, its prompt one placeholder). */
  const workflow = (name: string, prompt: string) => ({
    kind: 'graph',
    name,
    trigger: { type: 'on_demand' },
    budget: { maxUsdPerRun: 1 },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'a', type: 'service_task', action: 'current_time', args: {} },
      { id: 'b', type: 'service_task', action: 'current_time', args: {} },
      { id: 'think', type: 'agent_task', model, system: 'You think.', prompt },
      { id: 'done', type: 'end' },
    ],
    edges: [
      { from: 'start', to: 'a', when: heavy(150).replace('> 0', '< 0') },
      { from: 'start', to: 'b', when: 'input.x < 0' },
      { from: 'start', to: 'think' },
      { from: 'a', to: 'done' },
      { from: 'b', to: 'done' },
      { from: 'think', to: 'done' },
    ],
  });
  const advance = async (name: string, prompt: string, when?: string) => {
    const clock = new FixedClock();
    const definition = workflow(name, prompt);
    if (when) definition.edges[1]!.when = when;
    const { version } = await seedWorkflow(store, definition, { clock });
    const run = await seedRun(store, version, { clock, input: { x: 1 } });
    const next = await advanceGraphRun({ store, definitionOf: graphDefinitions(store), clock }, run.runId);
    return { next, steps: (await store.loadGraphRun(run.runId))?.steps ?? [] };
  };
  const causeOf = (next: unknown) =>
    (JSON.parse((next as { error: { Cause: string } }).error.Cause) as { errorMessage: string }).errorMessage;

  it('halts the run ConditionError naming the budget and the edge where the conditions ran out; nothing starts', async () => {
    const { next, steps } = await advance('over-conditions', 'hi', heavy(150).replace('> 0', '< 0'));
    expect(next).toMatchObject({ next: 'failed', error: { Error: 'ConditionError' } });
    expect(causeOf(next)).toMatch(
      /^the conditions are over budget: the conditions evaluated in one Advance took more than 300000 evaluation steps together \(EXPRESSION_LIMITS.maxStepsPerInvocation\); edges\[1\] 'start' → 'b' and the conditional edges after it were not decided\. Simplify the conditions/,
    );
    // Start has no step item; nothing was started or skipped.
    expect(steps).toEqual([]);
  });

  it('fails a started step whose prompt runs out of what the conditions left (TemplateRenderError), then the run', async () => {
    const { next, steps } = await advance('over-prompt', `{{ ${heavy(150)} }}`);
    expect(next).toMatchObject({ next: 'failed', error: { Error: 'StepFailed' } });
    const think = steps.find((step) => step.stepId === 'think');
    expect(think).toMatchObject({ status: 'failed', error: { name: 'TemplateRenderError' } });
    expect(think?.error?.message).toContain(
      'step think prompt: placeholder 0: the conditions and templates evaluated in one invocation took more than 300000',
    );
    // The same prompt where the conditions took little: the step starts.
    const fits = await advance('prompt-fits', `{{ ${heavy(100)} }}`);
    expect(fits.steps.find((step) => step.stepId === 'think')).toMatchObject({ status: 'running' });
  });
});
