/**
 * The run data that conditions and templates read: `{ input, steps: { <nodeId>: { status, output, timedOut? } } }`
 * (the shape the lead fixed for graph runs). Built from the stored step items; the start node is the input.
 */
import type { GraphDefinition, GraphNode } from '../graph/definition.ts';
import type { RunData, StepData } from '../graph/run-data.ts';
import type { GraphStep } from '../schemas/graph-step.ts';

export type { RunData };
export type StepView = StepData;

/** Each node's current state: its item, or `pending` without one; the start node has succeeded. */
export function stepViews(
  definition: GraphDefinition,
  steps: readonly GraphStep[],
  input?: unknown,
): Record<string, StepView> {
  const byId = new Map(steps.map((step) => [step.stepId, step]));
  const views: Record<string, StepView> = {};
  for (const node of definition.nodes) {
    const step = byId.get(node.id);
    if (node.type === 'start') views[node.id] = { status: 'succeeded', output: input ?? null };
    else if (!step) views[node.id] = { status: 'pending' };
    else
      views[node.id] = {
        status: step.status,
        ...(step.output === undefined ? {} : { output: step.output }),
        ...(step.timedOut ? { timedOut: true } : {}),
      };
  }
  return views;
}

export function runDataOf(input: unknown, views: Record<string, StepView>): RunData {
  return { input: input ?? null, steps: views };
}

export function nodeOf(definition: GraphDefinition, id: string): GraphNode {
  const node = definition.nodes.find((candidate) => candidate.id === id);
  if (!node) throw new Error(`graph ${definition.name} has no node '${id}'`);
  return node;
}
