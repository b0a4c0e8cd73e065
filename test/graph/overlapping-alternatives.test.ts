/**
 * Conditional edges out of one node are alternatives (docs/graph-workflows.md, "Conditions" and "Branches that
 * never join"): the save check lets them reach different ends, so at run time at most one may be true. When
 * two are, neither branch runs: the run halts `ConditionError` naming both edges (fail closed: the order of the
 * edges is no priority the author wrote), instead of running both and reaching two ends.
 */
import { describe, expect, it } from 'vitest';
import { readiness } from '../../shared/graph/ready.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import { FixedClock, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

const alternatives = (name: string) => ({
  kind: 'graph',
  name,
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
  input: { type: 'object', properties: { amount: { type: 'number' } } },
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'approve_path', type: 'service_task', action: 'current_time', args: {} },
    { id: 'decline_path', type: 'service_task', action: 'current_time', args: {} },
    { id: 'done', type: 'end' },
    { id: 'declined', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'approve_path', when: 'input.amount > 50' },
    { from: 'start', to: 'decline_path', when: 'input.amount > 100' },
    { from: 'approve_path', to: 'done' },
    { from: 'decline_path', to: 'declined' },
  ],
});

const started = (amount: number) => ({
  input: { amount },
  steps: { start: { status: 'succeeded' as const } },
});

describe('overlapping conditional alternatives', () => {
  const graph = alternatives('overlap') as never;

  it('one true: that branch runs, the other is skipped', async () => {
    const result = await readiness(graph, started(70));
    expect(result.ready.map((node) => node.id)).toEqual(['approve_path']);
    expect(result.skipped).toEqual(['decline_path', 'declined']);
    expect(result.conditionErrors).toEqual([]);
  });

  it('two true: neither runs and the run halts with a condition error naming both edges', async () => {
    const result = await readiness(graph, started(150));
    expect(result).toMatchObject({
      ready: [],
      skipped: [],
      outcome: 'failed',
      halt: { reason: 'condition_error', steps: ['start'] },
    });
    expect(result.edges.slice(0, 2)).toEqual(['open', 'open']);
    expect(result.conditionErrors).toEqual([
      {
        edge: 0,
        from: 'start',
        to: 'approve_path',
        error: {
          code: 'GRAPH_ALTERNATIVES_OVERLAP',
          message:
            "the conditions of edges[0] 'start' → 'approve_path' and edges[1] 'start' → 'decline_path' are true together; conditional edges out of one node are alternatives: at most one may be true",
        },
      },
    ]);
  });

  it('are saved (conditions cannot be compared before the data exists); the executor starts neither branch and fails the run ConditionError naming the edges', async () => {
    const clock = new FixedClock();
    const { version } = await seedWorkflow(store, alternatives('overlap-run'), { clock });
    const run = await seedRun(store, version, { clock, input: { amount: 150 } });
    const next = await advanceGraphRun({ store, definitionOf: graphDefinitions(store), clock }, run.runId);
    expect(next).toMatchObject({ next: 'failed', error: { Error: 'ConditionError' } });
    const cause = JSON.parse((next as { error: { Cause: string } }).error.Cause) as { errorMessage: string };
    expect(cause.errorMessage).toBe(
      "the conditions out of start chose more than one branch: the conditions of edges[0] 'start' → 'approve_path' and edges[1] 'start' → 'decline_path' are true together; conditional edges out of one node are alternatives: at most one may be true",
    );
    const steps = (await store.loadGraphRun(run.runId))?.steps ?? [];
    expect(steps.filter((step) => step.status !== 'succeeded' || step.stepId !== 'start')).toEqual([]);
  });
});

describe('an edge without a condition beside alternatives', () => {
  it('runs beside the one alternative taken; two true alternatives halt it as well', async () => {
    const graph = {
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'a', type: 'service_task' },
        { id: 'b', type: 'service_task' },
        { id: 'log', type: 'service_task' },
        { id: 'done', type: 'end' },
      ],
      edges: [
        { from: 'start', to: 'a', when: 'input.amount > 50' },
        { from: 'start', to: 'b', when: 'input.amount > 100' },
        { from: 'start', to: 'log' },
        { from: 'a', to: 'done' },
        { from: 'b', to: 'done' },
        { from: 'log', to: 'done' },
      ],
    } as never;
    expect((await readiness(graph, started(70))).ready.map((node) => node.id)).toEqual(['a', 'log']);
    expect(await readiness(graph, started(150))).toMatchObject({
      ready: [],
      outcome: 'failed',
      halt: { reason: 'condition_error' },
    });
  });
});
