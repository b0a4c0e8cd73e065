/**
 * A graph's `budget.maxUsdPerRun` caps its whole run: all its agent children together, on the graph run's spend
 * counter (a conditional ADD in every child reservation's transaction), whether the children run one after the
 * other or at the same time. Each child here reserves ~$1.51 (30,000 output tokens of claude-fable-5 at $50/M)
 * and spends ~$1.45, under a graph ceiling of $2: one child fits, two do not.
 */
import { describe, expect, it } from 'vitest';
import { roundUsd } from '../../shared/core/pricing.ts';
import type { ScriptedFixture } from '../../shared/model/index.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { applyWorkflowText, getAudit, runEnded } from '../e2e/support.ts';
import { graphStackForSuite } from '../support/graph-stack.ts';
import { startRefund, stepsOf } from './support.ts';

const CEILING = 2;
/** 29,000 of the 30,000 output tokens a child may use: ~$1.45 each, more than half the graph's ceiling. */
const costlyAnswer = (name: string): ScriptedFixture => ({
  name,
  turns: [
    {
      response: {
        content: [{ type: 'text', text: `${name} answered` }],
        usage: { input_tokens: 200, output_tokens: 29_000 },
      },
    },
  ],
});

const agentNode = (id: string) => `  - id: ${id}
    type: agent_task
    model: { id: claude-fable-5, maxTokens: 30000 }
    system: Answer in one line.
    prompt: "Step ${id}: {{ input.message }}"
    limits: { maxTurns: 1 }`;

/** One agent step `a`, with a day ceiling besides the run's. */
const dayCappedGraph = (name: string, maxUsdPerDay: number) => `kind: graph
name: ${name}
trigger: { type: on_demand }
budget: { maxUsdPerRun: ${CEILING}, maxUsdPerDay: ${maxUsdPerDay} }
nodes:
  - { id: start, type: start }
${agentNode('a')}
  - { id: done, type: end }
edges:
  - { from: start, to: a }
  - { from: a, to: done }
`;

/** Two agent steps, `a` then `b` (`parallel`: both right after start, joined at the end). */
const twoStepGraph = (name: string, parallel: boolean) => `kind: graph
name: ${name}
trigger: { type: on_demand }
budget: { maxUsdPerRun: ${CEILING} }
nodes:
  - { id: start, type: start }
${agentNode('a')}
${agentNode('b')}
  - { id: done, type: end }
edges:
${
  parallel
    ? `  - { from: start, to: a }
  - { from: start, to: b }
  - { from: a, to: done }
  - { from: b, to: done }`
    : `  - { from: start, to: a }
  - { from: a, to: b }
  - { from: b, to: done }`
}
`;

describe('a graph run under its budget', () => {
  const suite = graphStackForSuite({
    fixtures: ['gb-seq-a', 'gb-seq-b', 'gb-par-a', 'gb-par-b', 'gb-day-a'].map(costlyAnswer),
  });

  const childrenOf = async (runId: string) => {
    const steps = await stepsOf(suite.e2e, runId);
    const children: Record<string, Run | undefined> = {};
    for (const id of ['a', 'b']) {
      const childRunId = steps[id]?.childRunId;
      children[id] = childRunId ? await suite.e2e.stack.store.getRun(childRunId) : undefined;
    }
    return { steps, children };
  };

  const totalOf = (children: Record<string, Run | undefined>) =>
    roundUsd(Object.values(children).reduce((sum, child) => sum + (child?.costUsd ?? 0), 0));

  it('refuses the second of two steps that together would pass the graph ceiling', async () => {
    const { e2e } = suite;
    const workflowId = await applyWorkflowText(e2e, 'gb-seq', twoStepGraph('gb-seq', false));
    const runId = await startRefund(e2e, workflowId, 'go');
    const run = await runEnded(e2e, runId, 60_000);
    const { steps, children } = await childrenOf(runId);

    expect(children.a).toMatchObject({ status: 'done', parent: { maxUsdPerRun: CEILING } });
    expect(children.a!.costUsd).toBeGreaterThan(1.4);
    expect(children.b).toMatchObject({ status: 'failed', stopReason: 'budget_exceeded', modelCalls: 0 });
    expect(steps.b).toMatchObject({
      status: 'failed',
      error: { name: 'ChildRunEnded', message: 'the child run ended failed (budget_exceeded)' },
    });
    expect(run).toMatchObject({ status: 'failed', error: { name: 'StepFailed' } });
    expect(totalOf(children)).toBeLessThanOrEqual(CEILING);
    // The refusal names the graph's ceiling, and the counter holds exactly what the children spent.
    const refusal = (await getAudit(e2e, children.b!.runId)).entries.find(
      (entry) => entry.type === 'budget_exceeded',
    );
    expect(refusal?.data).toMatchObject({ scope: 'graph', graphRunId: runId, ceilingUsd: CEILING });
    expect(await e2e.stack.store.getGraphSpendDetail(runId)).toEqual({
      totalUsd: totalOf(children),
      reservedUsd: 0,
    });
  });

  it('lets only one of two children running at the same time spend past half the ceiling', async () => {
    const { e2e } = suite;
    const workflowId = await applyWorkflowText(e2e, 'gb-par', twoStepGraph('gb-par', true));
    const runId = await startRefund(e2e, workflowId, 'go');
    const run = await runEnded(e2e, runId, 60_000);
    const { children } = await childrenOf(runId);

    const statuses = Object.values(children).map((child) => `${child?.status}:${child?.stopReason}`);
    expect(statuses.sort()).toEqual(['done:end_turn', 'failed:budget_exceeded']);
    expect(run.status).toBe('failed');
    expect(totalOf(children)).toBeLessThanOrEqual(CEILING);
    expect((await e2e.stack.store.getGraphSpendDetail(runId)).reservedUsd).toBe(0);
  });

  it("counts the children on the graph workflow's day: the day's ceiling refuses a later run's child", async () => {
    const { e2e } = suite;
    const workflowId = await applyWorkflowText(e2e, 'gb-day', dayCappedGraph('gb-day', 2.5));
    const first = await runEnded(e2e, await startRefund(e2e, workflowId, 'one'), 60_000);
    const second = await runEnded(e2e, await startRefund(e2e, workflowId, 'two'), 60_000);
    const [spent, refused] = [
      (await childrenOf(first.runId)).children.a,
      (await childrenOf(second.runId)).children.a,
    ];

    expect(first.status).toBe('done');
    expect(spent?.costUsd).toBeGreaterThan(1.4);
    // Settled $1.45 plus a reservation of $1.51 passes the day's $2.50, though each graph run is under its $2.
    expect(refused).toMatchObject({ status: 'failed', stopReason: 'budget_exceeded', modelCalls: 0 });
    const refusal = (await getAudit(e2e, refused!.runId)).entries.find(
      (entry) => entry.type === 'budget_exceeded',
    );
    expect(refusal?.data).toMatchObject({ scope: 'day', ceilingUsd: 2.5 });
    expect(second.status).toBe('failed');
    // The day's counter is the graph workflow's (the children carry its owner and workflowId).
    const day = new Date().toISOString().slice(0, 10);
    expect(await e2e.stack.store.getDaySpendDetail(first.owner, workflowId, day)).toEqual({
      totalUsd: spent!.costUsd,
      reservedUsd: 0,
    });
  });
});
