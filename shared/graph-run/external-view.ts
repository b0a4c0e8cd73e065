/**
 * The external-workflow view of a graph's `external_task` node. The external run steps (Start, Observe, Finish:
 * shared/external/run/) take an `ExternalDefinition`; a node's child run is given one derived from the node and
 * the graph (its credRefs, trigger and budget), so a graph step and a `kind: external` workflow share the same
 * executor, ledger rows, audit entries and cancel. The child never sees or changes the graph.
 */
import { type ExternalDefinition, ExternalDefinitionShapeSchema } from '../external/definition.ts';
import type { GraphDefinition, GraphNode } from '../graph/definition.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowVersion } from '../schemas/workflow-record.ts';

export type ExternalTaskNode = Extract<GraphNode, { type: 'external_task' }>;

/** The engine's observe loop keeps the external kind's defaults. */
const OBSERVE = { initialIntervalSeconds: 5, maxIntervalSeconds: 300, unknownDeadlineSeconds: 3600 };

/**
 * The definition of an external step's child run: the node's engine, mode, result artifact and credential slot;
 * the graph's credRefs; the node's timeout as the run's deadline (then Observe cancels the engine's execution).
 * The payload is the child run's input (rendered from the run data when the step started), sent as is.
 */
export function externalStepView(graph: GraphDefinition, node: ExternalTaskNode): ExternalDefinition {
  return {
    kind: 'external',
    name: `${graph.name}-${node.id.replaceAll('_', '-')}`.slice(0, 63),
    engine: node.engine,
    mode: node.mode,
    payload: {},
    ...(node.resultArtifact === undefined ? {} : { resultArtifact: node.resultArtifact }),
    ...(node.credential === undefined ? {} : { credential: node.credential }),
    observe: {
      ...OBSERVE,
      unknownDeadlineSeconds: Math.min(OBSERVE.unknownDeadlineSeconds, node.timeoutSeconds),
    },
    trigger: { type: 'on_demand' },
    destination: { type: 'stored' },
    budget: { ...graph.budget, runTimeoutSeconds: node.timeoutSeconds },
    credRefs: graph.credRefs,
  };
}

/**
 * The external definition an external run works with: its version's, or (a graph step's child run, `run.parent`)
 * the view of the node its parent pointer names, from the graph version the run is bound to.
 */
export function externalDefinitionOf(stored: WorkflowVersion, run: Pick<Run, 'parent'>): ExternalDefinition {
  if (!run.parent) return ExternalDefinitionShapeSchema.parse(stored.definition);
  const graph = stored.definition;
  const node =
    graph.kind === 'graph' ? graph.nodes.find((candidate) => candidate.id === run.parent?.stepId) : undefined;
  if (node?.type !== 'external_task')
    throw new Error(`run's parent step ${run.parent.stepId} is not an external_task node of a graph`);
  return externalStepView(graph as GraphDefinition, node);
}
