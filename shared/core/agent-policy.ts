/**
 * The agent definition a turn runs, and the live policy it is checked against. A saved agent workflow's run
 * uses its bound version and the workflow's latest version. A graph step's child run (`run.parent`) has no
 * agent version of its own: its definition is derived from the `agent_task` node of the graph version the
 * run is bound to (graph-run/agent-view.ts), and its live policy from the same node of the latest version,
 * so withdrawing the node (or the workflow) withdraws its actions mid-run. The child never sees or changes
 * the graph.
 */
import { type AgentTaskNode, agentStepView } from '../graph-run/agent-view.ts';
import { kindOf, WorkflowKindError } from '../schemas/any-workflow.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import { asAgentVersion, isAgentVersion, type WorkflowVersion } from '../schemas/workflow-record.ts';
import { WorkflowVersionMissingError } from './errors.ts';
import type { RunStore } from './store-port.ts';

export type AgentPolicy = {
  definition: WorkflowDefinition;
  /** The live definition (latest version), or undefined when it no longer offers this agent anything. */
  liveDefinition: WorkflowDefinition | undefined;
  enabled: boolean;
};

/** The child run's agent definition from a graph version: the node its parent pointer names. */
export function childAgentDefinition(
  version: WorkflowVersion,
  stepId: string,
): WorkflowDefinition | undefined {
  const graph = version.definition;
  if (graph.kind !== 'graph') return undefined;
  const node = graph.nodes.find((candidate) => candidate.id === stepId);
  return node?.type === 'agent_task' ? agentStepView(graph, node as AgentTaskNode) : undefined;
}

export async function resolveAgentPolicy(
  store: Pick<RunStore, 'getWorkflowVersion' | 'getWorkflowHead'>,
  run: Run,
): Promise<AgentPolicy> {
  const stored = await store.getWorkflowVersion(run.owner, run.workflowId, run.workflowVersion);
  if (!stored) throw new WorkflowVersionMissingError(run.workflowId, run.workflowVersion);
  const parent = run.parent;
  const definition = parent ? childAgentDefinition(stored, parent.stepId) : asAgentVersion(stored).definition;
  if (!definition) throw new WorkflowKindError('agent_task node', kindOf(stored.definition));
  const head = await store.getWorkflowHead(run.owner, run.workflowId);
  const enabled = head?.enabled === true && !head.deleted;
  const live =
    head && enabled
      ? head.latestVersion === run.workflowVersion
        ? stored
        : await store.getWorkflowVersion(run.owner, run.workflowId, head.latestVersion)
      : undefined;
  // A later version of another kind withdraws every action: the agent loop it replaced no longer exists.
  const liveDefinition = !live
    ? undefined
    : parent
      ? childAgentDefinition(live, parent.stepId)
      : isAgentVersion(live)
        ? live.definition
        : undefined;
  return { definition, liveDefinition, enabled };
}
