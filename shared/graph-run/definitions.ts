/**
 * The graph a run is bound to: its own workflow version (never the latest), narrowed to `kind: graph`.
 * Published versions are immutable, so each one is read once per process and kept.
 */
import type { GraphDefinition } from '../graph/definition.ts';
import { kindOf, WorkflowKindError } from '../schemas/any-workflow.ts';
import type { Run } from '../schemas/run.ts';
import type { GraphDefinitionOf, GraphRunStore } from './ports.ts';

export class GraphVersionMissingError extends Error {
  override readonly name = 'GraphVersionMissingError';
}

export function graphDefinitions(store: Pick<GraphRunStore, 'getWorkflowVersion'>): GraphDefinitionOf {
  const cache = new Map<string, GraphDefinition>();
  return async (run: Run) => {
    const key = `${run.owner}\n${run.workflowId}\n${run.workflowVersion}`;
    const cached = cache.get(key);
    if (cached) return cached;
    const version = await store.getWorkflowVersion(run.owner, run.workflowId, run.workflowVersion);
    if (!version)
      throw new GraphVersionMissingError(`version ${run.workflowVersion} of ${run.workflowId} is missing`);
    const definition = version.definition;
    if (definition.kind !== 'graph') throw new WorkflowKindError('graph', kindOf(definition));
    cache.set(key, definition);
    return definition;
  };
}
