/**
 * Graph workflow bodies shared by the graph tests (a workflow as `POST /v1/workflows` takes it), and a run of
 * one created as the API creates it.
 */
import { expect } from 'vitest';
import { prepareRun } from '../../shared/core/new-run.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import type { ExecutionsPort } from '../../shared/runs/ports.ts';
import type { apiHarness } from '../api/helpers.ts';
import { randomIds } from './store.ts';

type ApiHarness = ReturnType<typeof apiHarness>;

/** The triage step: one agent turn, a child run of its own. */
export const TRIAGE_AGENT_STEP = {
  id: 'triage',
  type: 'agent_task',
  model: { id: 'claude-fable-5', maxTokens: 1000 },
  system: 'Answer in one line.',
  prompt: 'Triage {{ input.branch }}',
  limits: { maxTurns: 1 },
} as const;

/** start → triage (one agent step) → done, on demand, $1 a run. */
export const oneAgentStepGraph = (name: string) => ({
  kind: 'graph',
  name,
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
  nodes: [{ id: 'start', type: 'start' }, TRIAGE_AGENT_STEP, { id: 'done', type: 'end' }],
  edges: [
    { from: 'start', to: 'triage' },
    { from: 'triage', to: 'done' },
  ],
});

/**
 * Alice saves `workflow` through the API and starts an on-demand run of its version 1 with `input`, created in
 * the store as the API would (`prepareRun`, `createRun`); nothing is started: the caller drives the run.
 */
export async function aliceRunOf(h: ApiHarness, workflow: object, input: unknown = { branch: 'main' }) {
  const saved = await h.alice.post('/v1/workflows', workflow);
  expect(saved.status).toBe(201);
  const version = await h.store.getWorkflowVersion(h.owners.alice, saved.body.workflow.workflowId, 1);
  const prepared = prepareRun({
    version: version!,
    trigger: { type: 'on_demand', caller: 'alice' },
    input,
    clock: h.clock,
    ids: randomIds,
    actor: `owner:${h.owners.alice}`,
  });
  return (await h.store.createRun(prepared)).run;
}

/**
 * A graph run's dependencies on the harness's store and clock, with `executions` and `humanTasks` as the test
 * gives them; no child run answers (a test that needs one answers it itself).
 */
export const graphRunDeps = <HumanTasks>(
  h: ApiHarness,
  executions: ExecutionsPort,
  humanTasks: HumanTasks,
) => ({
  store: h.store,
  definitionOf: graphDefinitions(h.store),
  clock: h.clock,
  ids: randomIds,
  executions,
  humanTasks,
  answer: async (): Promise<never> => {
    throw new Error('no child answers here');
  },
});
