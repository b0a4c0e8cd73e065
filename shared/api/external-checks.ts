/**
 * Save-time checks of external work against this deployment: the engine of a `kind: external` definition, and
 * of every `external_task` node of a graph, must be registered and enabled (a run could not start otherwise).
 * Each refusal is a 400 naming the field (a graph's, the node too); nothing is written. (An external or graph
 * workflow's http destination is the definition schema's to refuse: schemas/destination.ts.)
 */
import { ExternalEngineUnavailableError } from '../external/index.ts';
import type { AnyWorkflowDefinition } from '../schemas/any-workflow.ts';
import type { ApiDeps } from './deps.ts';
import { invalid } from './errors.ts';

export function checkExternalDefinition(
  deps: Pick<ApiDeps, 'externalEngines'>,
  definition: AnyWorkflowDefinition,
): void {
  if (definition.kind === 'graph') {
    checkGraphEngines(deps, definition.nodes);
    return;
  }
  if (definition.kind !== 'external') return;
  const problem = engineProblem(deps, definition.engine);
  if (problem) throw invalid([{ path: 'engine', message: problem }], 'invalid workflow definition');
}

/** Every external_task node whose engine this deployment does not enable: one issue each. */
function checkGraphEngines(
  deps: Pick<ApiDeps, 'externalEngines'>,
  nodes: readonly { id: string; type: string; engine?: string }[],
) {
  const issues = nodes.flatMap((node, index) => {
    if (node.type !== 'external_task' || node.engine === undefined) return [];
    const problem = engineProblem(deps, node.engine);
    return problem ? [{ path: `nodes[${index}].engine`, message: `node '${node.id}': ${problem}` }] : [];
  });
  if (issues.length > 0) throw invalid(issues, 'invalid workflow definition');
}

/** Why `engine` cannot run here, or undefined. No registry means no engine is enabled. */
function engineProblem(deps: Pick<ApiDeps, 'externalEngines'>, engine: string): string | undefined {
  if (!deps.externalEngines)
    return `engine '${engine}' is not enabled in this deployment (no external engines are configured)`;
  try {
    deps.externalEngines.check(engine, 'engine');
    return undefined;
  } catch (error) {
    if (!(error instanceof ExternalEngineUnavailableError)) throw error;
    return error.message.replace(/^engine: /, '');
  }
}
