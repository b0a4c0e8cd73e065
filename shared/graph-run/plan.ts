/**
 * The pure decision behind `Advance`: from the step states, what is skipped, which end nodes are reached,
 * which steps start, and whether the run is done, failed or stuck. Skips and reached ends are settled at once
 * (they run nothing), and readiness is evaluated again until nothing more changes.
 */
import type { GraphDefinition } from '../graph/definition.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import { readiness } from './readiness.ts';
import { runDataOf, stepViews } from './run-data.ts';

export type Plan = {
  skip: string[];
  endsReached: string[];
  start: string[];
  /** Steps in `running` or `waiting` (another branch still working). */
  inFlight: string[];
  failed: GraphStep[];
  /** An end node has succeeded (before or now). */
  ended: boolean;
};

export async function planRun(
  definition: GraphDefinition,
  input: unknown,
  steps: readonly GraphStep[],
): Promise<Plan> {
  const views = stepViews(definition, steps);
  const skip: string[] = [];
  const endsReached: string[] = [];
  const typeOf = new Map(definition.nodes.map((node) => [node.id, node.type]));
  for (;;) {
    const { ready, skip: skipped } = await readiness(definition, views, runDataOf(input, views));
    const ends = ready.filter((id) => typeOf.get(id) === 'end');
    if (skipped.length === 0 && ends.length === 0) {
      return {
        skip,
        endsReached,
        start: ready,
        inFlight: steps.filter((s) => s.status === 'running' || s.status === 'waiting').map((s) => s.stepId),
        failed: steps.filter((step) => step.status === 'failed'),
        ended: definition.nodes.some((node) => node.type === 'end' && views[node.id]?.status === 'succeeded'),
      };
    }
    for (const id of skipped) views[id] = { status: 'skipped' };
    for (const id of ends) views[id] = { status: 'succeeded' };
    skip.push(...skipped);
    endsReached.push(...ends);
  }
}
