/**
 * The pure decision behind `Advance`, from shared/graph/ready.ts (readiness over the run data): what is skipped,
 * which end nodes are reached (they do no work: recorded succeeded at once), which steps start, which are
 * still in flight, and why the run halts (a failed or cancelled step, a condition that cannot be evaluated).
 */
import type { GraphDefinition } from '../graph/definition.ts';
import type { StepAllowance } from '../graph/expression-bounds.ts';
import { readiness } from '../graph/ready.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import { runDataOf, stepViews } from './run-data.ts';

export type Plan = {
  skip: string[];
  endsReached: string[];
  start: string[];
  /** Steps in `running` or `waiting`. */
  inFlight: string[];
  /** Why nothing new may start: the failed steps, or a condition error. */
  halt?: { reason: string; message: string };
  /** An end node has succeeded (before or now). */
  ended: boolean;
};

/** `allowance`: the steps the decision's expressions may take together (readiness draws from it first). */
export async function planRun(
  definition: GraphDefinition,
  input: unknown,
  steps: readonly GraphStep[],
  allowance?: StepAllowance,
): Promise<Plan> {
  const views = stepViews(definition, steps, input);
  const found = await readiness(definition, runDataOf(input, views), allowance);
  const inFlight = steps.filter((s) => s.status === 'running' || s.status === 'waiting').map((s) => s.stepId);
  const endsReached = found.ready.filter((node) => node.type === 'end').map((node) => node.id);
  const ended =
    endsReached.length > 0 ||
    definition.nodes.some((node) => node.type === 'end' && views[node.id]?.status === 'succeeded');
  const halt = found.halt && {
    reason: found.halt.reason,
    message:
      found.halt.reason === 'condition_error'
        ? found.conditionErrors
            .map((e) =>
              e.error.code === 'GRAPH_ALTERNATIVES_OVERLAP'
                ? `the conditions out of ${e.from} chose more than one branch: ${e.error.message}`
                : e.error.code === 'GRAPH_CONDITIONS_OVER_BUDGET'
                  ? `the conditions are over budget: ${e.error.message}`
                  : `a condition could not be evaluated: edge ${e.from} → ${e.to}: ${e.error.message}`,
            )
            .join('; ')
        : `step ${found.halt.steps.join(', ')} ${found.halt.reason === 'step_failed' ? 'failed' : 'was cancelled'}: ${
            steps.find((step) => step.stepId === found.halt?.steps[0])?.error?.message ?? 'no reason recorded'
          }`,
  };
  return {
    skip: found.skipped,
    endsReached,
    start: found.ready.filter((node) => node.type !== 'end' && node.type !== 'start').map((node) => node.id),
    inFlight,
    ...(halt ? { halt } : {}),
    ended,
  };
}
