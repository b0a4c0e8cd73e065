/**
 * What happens next in a graph run, as a pure function of the definition and the run data (no clock, no I/O):
 * which steps are ready, which become skipped, and whether the run is complete, stuck or failed. The executor's
 * Advance task calls it and records what it returns: after a lone service step (the fast path), and otherwise
 * once every step of the batch it started has ended (the state machine's Map ends when all its iterations do),
 * so a step whose predecessors all succeeded may wait for an unrelated step of that batch
 * (docs/graph-workflows.md, "What runs next").
 *
 * - An edge **fires** when its source succeeded and its `when` (if any) is true; it is **dead** when its source
 *   was skipped, failed or cancelled, or its condition is false; otherwise it is **open** (it can still fire).
 *   Conditional edges out of one node are alternatives: when more than one is true, none fires and the run
 *   halts with a condition error naming them (`GRAPH_ALTERNATIVES_OVERLAP`).
 * - A pending node is ready when none of its incoming edges is open and at least one fired (a join waits for
 *   every incoming edge that can still fire); when all are dead it is skipped, which kills its outgoing edges in
 *   turn (propagated in the same call). `start` is ready while pending.
 * - The conditions of one call draw from one StepAllowance (EXPRESSION_LIMITS.maxStepsPerInvocation unless the
 *   caller passes the one its invocation shares), evaluated in the order of the edges: where it runs out, that
 *   edge and every conditional edge after it stay open, not evaluated, and one error names the budget and that
 *   edge (`GRAPH_CONDITIONS_OVER_BUDGET`). Steps are counted, not timed, so the same data stops at the same edge.
 *   Edges are not remembered between calls (each is decided again from the run data): nothing stores an edge's
 *   state, and skipping a condition would need a proof that nothing it reads has changed since, which the
 *   save-time reference check (expression-checks.ts: the explicit root paths of an expression) does not give
 *   for every expression.
 * - A failed or cancelled step, or a condition that cannot be evaluated, halts the run: nothing new starts,
 *   steps in progress finish, then the outcome is `failed` (or `cancelled`). Retrying the failed step (set back
 *   to pending) resumes readiness where it stopped, because nothing downstream was skipped.
 * - `complete`: an end succeeded and nothing is in progress or ready. `stuck`: nothing is in progress or ready
 *   and no end succeeded (every path was skipped).
 */
import type { GraphDefinition, GraphNodeType } from './definition.ts';
import { OVER_BUDGET, type StepAllowance } from './expression-bounds.ts';
import {
  compileExpression,
  type ExpressionError,
  evaluateCondition,
  invocationAllowance,
} from './expressions.ts';
import { IN_PROGRESS_STATUSES, type RunData, type StepStatus } from './run-data.ts';

export type EdgeState = 'fired' | 'dead' | 'open';
export type RunOutcome = 'running' | 'complete' | 'stuck' | 'failed' | 'cancelled';
export type ConditionError = { edge: number; from: string; to: string; error: ExpressionError };

export type Readiness = {
  /** Steps to start now. `start` and `end` do no work: record them succeeded (start's output is the input). */
  ready: { id: string; type: GraphNodeType }[];
  /** Pending steps to record as skipped (all their incoming edges are dead). */
  skipped: string[];
  outcome: RunOutcome;
  /** Why nothing new may start, when a step failed or was cancelled or a condition could not be evaluated. */
  halt?: { reason: 'step_failed' | 'step_cancelled' | 'condition_error'; steps: string[] };
  /** The state of each edge, by index in `definition.edges`. */
  edges: EdgeState[];
  conditionErrors: ConditionError[];
};

export type GraphShape = Pick<GraphDefinition, 'nodes' | 'edges'>;

/** The error of the edge where the allowance ran out: the budget, the edge, and what to do. */
function overBudget(
  index: number,
  edge: GraphShape['edges'][number],
  allowance: StepAllowance,
): ConditionError {
  return {
    edge: index,
    from: edge.from,
    to: edge.to,
    error: {
      code: OVER_BUDGET,
      message:
        `the conditions evaluated in one Advance took more than ${allowance.total} evaluation steps together ` +
        `(EXPRESSION_LIMITS.maxStepsPerInvocation); edges[${index}] '${edge.from}' → '${edge.to}' and the ` +
        'conditional edges after it were not decided. Simplify the conditions (fewer steps each: filter less ' +
        'data, compute a value once in a step) or split the graph into smaller workflows',
    },
  };
}

async function edgeStates(
  graph: GraphShape,
  status: Map<string, StepStatus>,
  data: RunData,
  errors: ConditionError[],
  allowance: StepAllowance,
): Promise<EdgeState[]> {
  const states: EdgeState[] = [];
  let stopped = false;
  for (const [index, edge] of graph.edges.entries()) {
    const source = status.get(edge.from) ?? 'pending';
    if (source === 'skipped' || source === 'failed' || source === 'cancelled') states.push('dead');
    else if (source !== 'succeeded') states.push('open');
    else if (edge.when === undefined) states.push('fired');
    else if (stopped) states.push('open');
    else if (allowance.spent) {
      errors.push(overBudget(index, edge, allowance));
      stopped = true;
      states.push('open');
    } else {
      const compiled = compileExpression(edge.when);
      const result = compiled.ok ? await evaluateCondition(compiled.value, data, allowance) : compiled;
      stopped = !result.ok && result.error.code === OVER_BUDGET;
      if (stopped) errors.push(overBudget(index, edge, allowance));
      else if (!result.ok) errors.push({ edge: index, from: edge.from, to: edge.to, error: result.error });
      states.push(result.ok && result.value ? 'fired' : result.ok ? 'dead' : 'open');
    }
  }
  overlappingAlternatives(graph, states, errors);
  return states;
}

/**
 * Conditional edges out of one node are alternatives (shared/graph/branches.ts: they need not join, so two of
 * them may lead to two different ends): at most one may be true. When two or more are, none is taken — each
 * stays open, as for a condition that cannot be evaluated — and one error names them all, so the run halts
 * `ConditionError` instead of guessing (an order of edges is not a priority the author wrote down) or running
 * both and reaching two ends. Edges without a condition run beside whichever alternative is taken.
 */
function overlappingAlternatives(graph: GraphShape, states: EdgeState[], errors: ConditionError[]): void {
  const firedBySource = new Map<string, number[]>();
  graph.edges.forEach((edge, index) => {
    if (edge.when === undefined || states[index] !== 'fired') return;
    firedBySource.set(edge.from, [...(firedBySource.get(edge.from) ?? []), index]);
  });
  for (const [from, fired] of firedBySource) {
    if (fired.length < 2) continue;
    const named = fired.map((index) => `edges[${index}] '${from}' → '${graph.edges[index]!.to}'`);
    for (const index of fired) states[index] = 'open';
    errors.push({
      edge: fired[0]!,
      from,
      to: graph.edges[fired[0]!]!.to,
      error: {
        code: 'GRAPH_ALTERNATIVES_OVERLAP',
        message: `the conditions of ${named.join(' and ')} are true together; conditional edges out of one node are alternatives: at most one may be true`,
      },
    });
  }
}

/**
 * Ready steps, skips and the run's outcome for the current run data (a step absent from `data.steps` is
 * pending). The conditions draw from `allowance`: pass the one the invocation's other evaluations share.
 */
export async function readiness(
  graph: GraphShape,
  data: RunData,
  allowance: StepAllowance = invocationAllowance(),
): Promise<Readiness> {
  const status = new Map<string, StepStatus>(
    graph.nodes.map((node) => [node.id, data.steps[node.id]?.status ?? 'pending']),
  );
  const conditionErrors: ConditionError[] = [];
  const edges = await edgeStates(graph, status, data, conditionErrors, allowance);
  const inProgress = [...status.values()].some((s) => IN_PROGRESS_STATUSES.includes(s));
  const failed = graph.nodes.filter((node) => status.get(node.id) === 'failed').map((node) => node.id);
  const cancelled = graph.nodes.filter((node) => status.get(node.id) === 'cancelled').map((node) => node.id);
  const halt: Readiness['halt'] =
    cancelled.length > 0
      ? { reason: 'step_cancelled', steps: cancelled }
      : failed.length > 0
        ? { reason: 'step_failed', steps: failed }
        : conditionErrors.length > 0
          ? { reason: 'condition_error', steps: [...new Set(conditionErrors.map((e) => e.from))] }
          : undefined;
  if (halt) {
    const outcome: RunOutcome = inProgress
      ? 'running'
      : halt.reason === 'step_cancelled'
        ? 'cancelled'
        : 'failed';
    return { ready: [], skipped: [], outcome, halt, edges, conditionErrors };
  }
  const skipped: string[] = [];
  const ready = new Map<string, GraphNodeType>();
  // Each pass settles at least one more node when anything changes; a DAG needs at most one pass per node.
  for (let changed = true, passes = 0; changed && passes <= graph.nodes.length; passes += 1) {
    changed = false;
    for (const node of graph.nodes) {
      if (status.get(node.id) !== 'pending' || ready.has(node.id)) continue;
      const incoming = graph.edges.flatMap((edge, index) => (edge.to === node.id ? [edges[index]] : []));
      if (node.type === 'start' || (incoming.includes('fired') && !incoming.includes('open'))) {
        ready.set(node.id, node.type);
      } else if (!incoming.includes('open') && !incoming.includes('fired')) {
        status.set(node.id, 'skipped');
        skipped.push(node.id);
        changed = true;
        graph.edges.forEach((edge, index) => {
          if (edge.from === node.id) edges[index] = 'dead';
        });
      }
    }
  }
  const endReached = graph.nodes.some((node) => node.type === 'end' && status.get(node.id) === 'succeeded');
  const outcome: RunOutcome = inProgress || ready.size > 0 ? 'running' : endReached ? 'complete' : 'stuck';
  return { ready: [...ready].map(([id, type]) => ({ id, type })), skipped, outcome, edges, conditionErrors };
}
