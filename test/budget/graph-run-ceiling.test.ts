/**
 * A graph's `budget.maxUsdPerRun` caps all of one graph run's agent children together (operator retries
 * included), on the graph run's spend counter: a conditional ADD in the transaction of every child reservation
 * (its creation's turn 0, each turn's own), settled, given back or counted as spent as the day's counter is.
 */
import { describe, expect, it } from 'vitest';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import { roundUsd } from '../../shared/core/pricing.ts';
import type { GraphDefinition } from '../../shared/graph/definition.ts';
import { agentChildRun } from '../../shared/graph-run/agent-child.ts';
import type { AgentTaskNode } from '../../shared/graph-run/agent-view.ts';
import type { GraphStep } from '../../shared/schemas/graph-step.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { driveRun, engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { FixedClock, randomIds, seedRun, seedWorkflow, testPlanning, testStore } from '../support/store.ts';
import { ceilingLine, totalCost } from './support.ts';

const store = testStore();

/** start → work (an agent step) → done, under a graph ceiling of `ceiling`. */
const oneStepGraph = (ceiling: number) => ({
  kind: 'graph',
  name: 'ceiling-graph',
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: ceiling },
  gates: {},
  nodes: [
    { id: 'start', type: 'start' },
    {
      id: 'work',
      type: 'agent_task',
      model: { id: 'claude-sonnet-5-5', maxTokens: 4096 },
      system: 'Answer.',
      prompt: 'Work.',
      allowedActions: ['notes_append'],
      limits: { maxTurns: 2 },
    },
    { id: 'done', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'work' },
    { from: 'work', to: 'done' },
  ],
});

/** A graph run and a creator of its `work` step's child runs, one per attempt (an operator retry each). */
async function graphRun(ceiling: number) {
  const clock = new FixedClock();
  const { version } = await seedWorkflow(store, oneStepGraph(ceiling), { clock });
  const parent = await seedRun(store, version, { clock });
  const graph = version.definition as GraphDefinition;
  const node = graph.nodes.find((candidate) => candidate.id === 'work') as AgentTaskNode;
  const child = async (attempt: number): Promise<Run> => {
    const step = { stepId: 'work', attempt, input: { prompt: 'Work.' } } as GraphStep;
    const prepared = agentChildRun(
      { clock, firstTurn: testPlanning(store) },
      graph,
      parent,
      step,
      node,
      randomIds.next('run'),
    );
    return (await store.createRun(prepared)).run;
  };
  return { clock, parent, child };
}

describe("a graph run's ceiling over its children", () => {
  it('10 children at the same time use at least 85% of the graph ceiling and never overshoot it', async () => {
    // Prepare: each call reserves ~$0.043 (4096 tokens at $10/MTok plus the input bound) and costs $0.0302:
    // the children's reservations alone would fill the $0.3 ceiling before their settled spend does.
    const ceiling = 0.3;
    const { clock, parent, child } = await graphRun(ceiling);
    const children = await Promise.all(Array.from({ length: 10 }, (_, index) => child(index + 1)));
    const model = new ScriptedModel([
      { content: [text('ok')], stopReason: 'end_turn', usage: { inputTokens: 100, outputTokens: 3000 } },
    ]);

    // Act
    await Promise.all(children.map((run) => driveRun(engineDeps(store, model, { clock }), run.runId)));

    // Assess
    const final = await Promise.all(children.map((run) => store.getRun(run.runId)));
    const counter = await store.getGraphSpendDetail(parent.runId);
    const done = final.filter((run) => run?.status === 'done').length;
    const stopped = final.filter((run) => run?.stopReason === 'budget_exceeded').length;
    console.log(
      ceilingLine('[graph run budget]', { done, stopped, spentUsd: counter.totalUsd, ceilingUsd: ceiling }),
    );
    expect(counter.totalUsd).toBeLessThanOrEqual(ceiling);
    expect(counter.reservedUsd).toBe(0);
    expect(totalCost(final)).toBe(roundUsd(counter.totalUsd));
    expect(counter.totalUsd).toBeGreaterThanOrEqual(0.85 * ceiling);
    expect(done + stopped).toBe(10);
    expect(stopped).toBeGreaterThan(0);
  });

  it("settles a child's tool turn and the reservation its commit made ahead on the graph counter", async () => {
    // Prepare: turn 0 calls a tool, so its commit reserves turn 1 ahead (merged with turn 0's settlement).
    const { clock, parent, child } = await graphRun(1);
    const run = await child(1);
    const usage = { inputTokens: 100, outputTokens: 300 };
    const model = new ScriptedModel([
      { content: [toolUse('t1', 'notes_append', { name: 'log', line: 'x' })], stopReason: 'tool_use', usage },
      { content: [text('done')], stopReason: 'end_turn', usage },
    ]);

    // Act
    await driveRun(engineDeps(store, model, { clock }), run.runId);

    // Assess: two calls, each reserved then settled at its cost; the counter is the child's spend, no more.
    const final = (await store.getRun(run.runId))!;
    expect(final).toMatchObject({ status: 'done', modelCalls: 2 });
    const reserved = (await store.listAudit(run.runId)).filter((entry) => entry.type === 'budget_reserved');
    expect(reserved.map((entry) => [entry.data.turn, entry.data.ahead, entry.data.graphCeilingUsd])).toEqual([
      [0, true, 1],
      [1, true, 1],
    ]);
    expect(await store.getGraphSpendDetail(parent.runId)).toEqual({
      totalUsd: final.costUsd,
      reservedUsd: 0,
    });
  });

  it('counts a reservation as spent when its child is ended from outside (a paid call is never free)', async () => {
    // Prepare: a child created with turn 0's reservation, on the graph run's counter.
    const { clock, parent, child } = await graphRun(1);
    const run = await child(1);
    const reserved = run.reservation!;
    expect(reserved).toMatchObject({ turn: 0, graph: true });
    expect(await store.getGraphSpendDetail(parent.runId)).toEqual({
      totalUsd: reserved.usd,
      reservedUsd: reserved.usd,
    });

    // Act: MarkFailed ends it (its turn 0 may have been in its model call).
    await markRunFailed({ store, clock }, { runId: run.runId, error: { name: 'Crash', message: 'x' } });

    // Assess
    expect(await store.getGraphSpendDetail(parent.runId)).toEqual({ totalUsd: reserved.usd, reservedUsd: 0 });
    expect((await store.getRun(run.runId))?.costUsd).toBe(reserved.usd);
  });
});
