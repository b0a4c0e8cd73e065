/**
 * Graph workflow bodies shared by the graph tests: a workflow as `POST /v1/workflows` takes it.
 */

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
