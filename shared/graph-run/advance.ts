/**
 * `Advance`: reads the graph run and its steps (one Query), decides what is next (decide.ts) and returns
 * step ids for the state machine. A write that lost to a concurrent one (an operator's pause, a step's
 * settle) is decided again on a fresh read, with a fresh allowance of its own, all the decisions drawing from
 * the invocation's steps together (invocationSteps(), shared/graph/expressions.ts).
 */
import type { Clock } from '../core/ports.ts';
import { RunConflictError, StepConflictError } from '../core/store-errors.ts';
import { invocationSteps } from '../graph/expressions.ts';
import { isTerminalRunStatus } from '../schemas/run.ts';
import { decideNext } from './decide.ts';
import type { GraphDefinitionOf, GraphNext, GraphRunStore } from './ports.ts';

export type AdvanceDeps = { store: GraphRunStore; definitionOf: GraphDefinitionOf; clock: Clock };

export const isConflict = (error: unknown): boolean =>
  error instanceof RunConflictError || error instanceof StepConflictError;

export async function advanceGraphRun(deps: AdvanceDeps, runId: string): Promise<GraphNext> {
  const invocation = invocationSteps();
  for (let attempt = 1; ; attempt++) {
    const loaded = await deps.store.loadGraphRun(runId);
    if (!loaded || isTerminalRunStatus(loaded.run.status)) return { next: 'stop' };
    const definition = await deps.definitionOf(loaded.run);
    try {
      return await decideNext(deps, loaded.run, loaded.steps, definition, invocation.decision());
    } catch (error) {
      if (!isConflict(error) || attempt >= 5) throw error;
    }
  }
}
