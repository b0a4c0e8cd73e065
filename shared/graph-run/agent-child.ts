/**
 * The child agent run of an agent step: a run of the agent kind with a parent pointer, bound to the graph's
 * version (its definition is the node's view, agent-view.ts), whose first message is the prompt rendered when
 * the step started. When it ends, its answer goes to the step's wait (parent-answer.ts).
 */

import { type FirstTurnPlanning, reserveFirstTurn } from '../core/first-reservation.ts';
import { prepareRun } from '../core/new-run.ts';
import type { Clock } from '../core/ports.ts';
import type { GraphDefinition } from '../graph/definition.ts';
import { firstTurnPlanning } from '../runs/first-turn.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import type { Run } from '../schemas/run.ts';
import type { NewRun } from '../store/runs.ts';
import { type AgentTaskNode, agentStepView } from './agent-view.ts';

export function agentChildRun(
  deps: { clock: Clock; firstTurn?: FirstTurnPlanning | undefined },
  graph: GraphDefinition,
  run: Run,
  step: GraphStep,
  node: AgentTaskNode,
  childRunId: string,
): NewRun {
  const prompt = String((step.input as { prompt?: unknown } | undefined)?.prompt ?? '');
  const definition = agentStepView(graph, node);
  const prepared = prepareRun({
    version: {
      schemaVersion: 1,
      owner: run.owner,
      workflowId: run.workflowId,
      version: run.workflowVersion,
      definition,
      status: 'published',
      createdAt: run.createdAt,
    },
    trigger: { type: 'on_demand', caller: `graph:${run.runId}` },
    input: { prompt },
    clock: deps.clock,
    ids: { next: () => childRunId },
    actor: 'system',
  });
  const child: NewRun = {
    ...prepared,
    run: {
      ...prepared.run,
      kind: 'agent',
      // The graph's ceiling over all its children (retries included), on the graph run's spend counter.
      parent: {
        runId: run.runId,
        stepId: step.stepId,
        attempt: step.attempt,
        maxUsdPerRun: graph.budget.maxUsdPerRun,
      },
    },
    firstMessage: { ...prepared.firstMessage, content: [{ type: 'text', text: prompt }] },
  };
  // The child's turn 0 reserves with its creation, from the node's view (core/first-reservation.ts).
  return reserveFirstTurn(child, definition, deps.firstTurn ?? firstTurnPlanning(), deps.clock);
}
