/**
 * The agent-workflow views of a graph's nodes. The gate, the action catalog and the turn engine all take an
 * agent `WorkflowDefinition`; a graph node is given one derived from the node and the graph (its connectors,
 * credRefs, approvals and a share of its budget), so every kind shares the same gate and ledger code.
 */
import type { GraphDefinition, GraphNode } from '../graph/definition.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';

export type ServiceTaskNode = Extract<GraphNode, { type: 'service_task' }>;
export type AgentTaskNode = Extract<GraphNode, { type: 'agent_task' }>;
export type HumanTaskNode = Extract<GraphNode, { type: 'human_task' }>;

/** The one action of a service step, gated by the graph's `gates` (no entry: allow). */
export function serviceStepView(graph: GraphDefinition, node: ServiceTaskNode): WorkflowDefinition {
  return withDefaults({
    kind: 'agent',
    name: graph.name,
    model: { id: 'service-task', provider: 'anthropic', thinking: 'off', maxTokens: 1 },
    prompt: { system: `service step ${node.id}` },
    allowedActions: [node.action],
    connectors: graph.connectors,
    gates: graph.gates,
    ...(graph.approvals ? { approvals: graph.approvals } : {}),
    trigger: graph.trigger,
    destination: { type: 'stored' },
    budget: { ...graph.budget, maxToolCallsPerTurn: 1 },
    credRefs: graph.credRefs,
  });
}

/**
 * The definition of an agent step's child run: the node's model, system prompt, allowed actions, gates and
 * limits; the graph's connectors, credRefs and approvals; at most the graph's per-run budget, and the graph's
 * per-day ceiling. The child carries the graph's owner and workflowId, so its reservations count on the graph
 * workflow's day counter (`maxUsdPerDay`: all runs of the workflow together, children included). The graph's
 * `maxUsdPerRun` also caps all of one graph run's children together: the child's `parent.maxUsdPerRun`
 * (agent-child.ts), enforced on the graph run's spend counter (core/reservation-parts.ts).
 */
export function agentStepView(graph: GraphDefinition, node: AgentTaskNode): WorkflowDefinition {
  const maxUsd = Math.min(node.limits.maxUsd ?? graph.budget.maxUsdPerRun, graph.budget.maxUsdPerRun);
  return withDefaults({
    kind: 'agent',
    name: `${graph.name}-${node.id.replaceAll('_', '-')}`.slice(0, 63),
    model: node.model,
    prompt: { system: node.system },
    allowedActions: node.allowedActions,
    connectors: graph.connectors,
    gates: node.gates,
    ...(graph.approvals ? { approvals: graph.approvals } : {}),
    trigger: { type: 'on_demand' },
    destination: { type: 'stored' },
    budget: {
      maxUsdPerRun: maxUsd,
      ...(graph.budget.maxUsdPerDay === undefined ? {} : { maxUsdPerDay: graph.budget.maxUsdPerDay }),
      maxTurns: node.limits.maxTurns,
      maxToolCallsPerTurn: graph.budget.maxToolCallsPerTurn,
      runTimeoutSeconds: graph.budget.runTimeoutSeconds,
    },
    credRefs: graph.credRefs,
  });
}

/**
 * The view as the agent schema's output: every field comes from already-parsed graph fields, so only the
 * prompt's own default (no knowledge snippets) is added here.
 */
function withDefaults(view: Record<string, unknown> & { prompt: { system: string } }): WorkflowDefinition {
  return { ...view, prompt: { knowledge: [], ...view.prompt } } as unknown as WorkflowDefinition;
}
