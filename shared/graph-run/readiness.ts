/**
 * Which nodes can start now, and which can never run (skipped), given the step states and the run data.
 * An edge fires when its source succeeded and its `when` (if any) is true; it is dead when its source was
 * skipped, or succeeded with `when` false. A node is ready when every incoming edge is decided and one fired
 * (a join waits for every edge that can still fire); it is skipped when every incoming edge is dead.
 *
 * This is the graph-run side's adapter: when shared/graph/ready.ts (h/graph-def) is merged, it delegates there.
 */
import type { GraphDefinition } from '../graph/definition.ts';
import { evaluateCondition } from './expressions.ts';
import type { RunData, StepView } from './run-data.ts';

export type Readiness = { ready: string[]; skip: string[] };

export async function readiness(
  definition: GraphDefinition,
  views: Record<string, StepView>,
  data: RunData,
): Promise<Readiness> {
  const ready: string[] = [];
  const skip: string[] = [];
  for (const node of definition.nodes) {
    if (node.type === 'start' || views[node.id]?.status !== 'pending') continue;
    const incoming = definition.edges.filter((edge) => edge.to === node.id);
    let fired = 0;
    let dead = 0;
    for (const edge of incoming) {
      const source = views[edge.from]?.status;
      if (source === 'skipped' || source === 'failed' || source === 'cancelled') dead += 1;
      else if (source === 'succeeded') {
        if (edge.when === undefined || (await evaluateCondition(edge.when, data))) fired += 1;
        else dead += 1;
      }
    }
    if (fired + dead < incoming.length) continue;
    if (fired > 0) ready.push(node.id);
    else skip.push(node.id);
  }
  return { ready, skip };
}
