/**
 * An agent step whose prompt renders blank fails (TemplateRenderError, naming the step) instead of starting a
 * child run whose first message the Messages API refuses on every call ("text content blocks must be
 * non-empty"; docs/scripted-model.md "Request rules"). On DynamoDB Local, through Advance.
 */
import { describe, expect, it } from 'vitest';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import { FixedClock, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { refundGraph } from './fixtures.ts';

describe('Advance: an agent step whose prompt renders blank', () => {
  const store = testStore();
  const model = (refundGraph().nodes as { type: string; model?: unknown }[]).find(
    (node) => node.type === 'agent_task',
  )?.model;
  /** start → think (an agent step whose prompt is the run's `note`) → done. */
  const workflow = (name: string) => ({
    kind: 'graph',
    name,
    trigger: { type: 'on_demand' },
    budget: { maxUsdPerRun: 1 },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'think', type: 'agent_task', model, system: 'You think.', prompt: '{{ input.note }}' },
      { id: 'done', type: 'end' },
    ],
    edges: [
      { from: 'start', to: 'think' },
      { from: 'think', to: 'done' },
    ],
  });
  const advance = async (name: string, note: string) => {
    const clock = new FixedClock();
    const { version } = await seedWorkflow(store, workflow(name), { clock });
    const run = await seedRun(store, version, { clock, input: { note } });
    const next = await advanceGraphRun({ store, definitionOf: graphDefinitions(store), clock }, run.runId);
    const steps = (await store.loadGraphRun(run.runId))?.steps ?? [];
    return { next, think: steps.find((step) => step.stepId === 'think') };
  };

  it.each([
    ['empty', ''],
    ['whitespace', ' \n\t'],
  ])('fails the step, naming it, when the prompt renders %s; the run fails', async (_case, note) => {
    // Act
    const { next, think } = await advance(`blank-${_case}`, note);

    // Assess
    expect(next).toMatchObject({ next: 'failed', error: { Error: 'StepFailed' } });
    expect(think).toMatchObject({ status: 'failed', error: { name: 'TemplateRenderError' } });
    expect(think?.error?.message).toBe(
      `step think prompt: rendered blank (${JSON.stringify(note)}); the Messages API refuses an empty first message`,
    );
  });

  it('starts the step when the prompt has any text', async () => {
    // Act
    const { think } = await advance('one-char', '.');

    // Assess
    expect(think).toMatchObject({ status: 'running', input: { prompt: '.' } });
  });
});
