/**
 * The live policy of a service step, the same as an agent turn's (shared/core/turn-context.ts): the run's
 * version's gate ∩ the workflow head (enabled, not deleted) and the same node of its latest version, the
 * stricter gate winning. Without a read of its own: the step's write that lets a call go ahead carries the head
 * as a condition (`liveHead`, assuming the run's version is still the latest), so a workflow disabled, deleted
 * or republished mid-run fails that write; only then is the head read and the gate decided on what it says.
 */
import { type EffectiveGrant, effectiveGrant } from '../core/gate.ts';
import { liveHeadCondition, liveVersionOf } from '../core/live-policy.ts';
import type { RunStore } from '../core/store-port.ts';
import type { GraphDefinition } from '../graph/definition.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import { type ServiceTaskNode, serviceStepView } from './agent-view.ts';
import type { GraphDefinitionOf } from './ports.ts';

/** The effective grant and the head it holds for; `latestVersion` absent: the workflow may not run at all. */
export type LivePolicy = { grant: EffectiveGrant; latestVersion?: number };

/** What the step assumes until a write says otherwise: its own version is the live one, and enabled. */
export function assumedPolicy(run: Run, view: WorkflowDefinition): LivePolicy {
  return { grant: effectiveGrant(view, view, true), latestVersion: run.workflowVersion };
}

/** Reads the head (and, if newer, its version's same node): the live policy as an agent turn computes it. */
export async function readLivePolicy(
  deps: { store: Pick<RunStore, 'getWorkflowHead'>; definitionOf: GraphDefinitionOf },
  run: Run,
  node: ServiceTaskNode,
  view: WorkflowDefinition,
): Promise<LivePolicy> {
  // Fail closed: a missing, disabled or deleted workflow grants nothing.
  const latestVersion = liveVersionOf(await deps.store.getWorkflowHead(run.owner, run.workflowId));
  if (latestVersion === undefined) return { grant: new Map() };
  const live =
    latestVersion === run.workflowVersion
      ? view
      : liveView(
          await deps.definitionOf({ ...run, workflowVersion: latestVersion }).catch(() => undefined),
          node.id,
        );
  return { grant: effectiveGrant(view, live, true), latestVersion };
}

/** The same node in the latest version; gone (or no longer a service step, or another kind) → withdrawn. */
export function liveView(graph: GraphDefinition | undefined, stepId: string): WorkflowDefinition | undefined {
  const node = graph?.nodes.find((candidate) => candidate.id === stepId);
  return graph && node?.type === 'service_task' ? serviceStepView(graph, node) : undefined;
}

/** The condition a write carries for `policy` (none when the workflow may not run: nothing goes ahead then). */
export function liveHeadOf(run: Run, policy: LivePolicy) {
  return policy.latestVersion === undefined ? {} : liveHeadCondition(run, policy.latestVersion);
}
