/**
 * The agent definition a turn runs. A saved agent workflow's run uses its bound version. A graph step's child
 * run (`run.parent`) has no agent version of its own: its definition is derived from the `agent_task` node of
 * the graph version the run is bound to (graph-run/agent-view.ts), and its live policy (turn-context.ts) from
 * the same node of the latest version, so withdrawing the node (or the workflow) withdraws its actions
 * mid-run. The child never sees or changes the graph.
 */
import { type AgentTaskNode, agentStepView } from '../graph-run/agent-view.ts';
import { kindOf, WorkflowKindError } from '../schemas/any-workflow.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import { asAgentVersion, type WorkflowVersion } from '../schemas/workflow-record.ts';

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

/** The agent definition a run's turns use: its version's, or (a child run) the one derived from its node. */
export function agentDefinitionOf(stored: WorkflowVersion, run: Run): WorkflowDefinition {
  if (!run.parent) return asAgentVersion(stored).definition;
  const definition = childAgentDefinition(stored, run.parent.stepId);
  if (!definition) throw new WorkflowKindError('agent_task node', kindOf(stored.definition));
  return definition;
}
