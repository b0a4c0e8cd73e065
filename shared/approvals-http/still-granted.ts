/**
 * Whether an approved call would still run: the Turn dispatches an approved call only if the action is still
 * in the effective grant (the run's version ∩ the workflow's latest version, and the workflow enabled). A graph
 * run's gated service step is held to the same policy for its node (shared/graph-run/service-policy.ts: the
 * node's view in the run's version ∩ the same node in the latest version, the workflow enabled and not
 * deleted). The approval pages say so before and after a decision, so an approver is never told "the run
 * performs it" when the action was withdrawn since it was requested, nor "it will not run" when it will.
 */
import { effectiveGrant } from '../core/gate.ts';
import type { RunStore } from '../core/store-port.ts';
import { serviceStepView } from '../graph-run/agent-view.ts';
import { liveView } from '../graph-run/service-policy.ts';
import type { Approval } from '../schemas/approval.ts';
import { isGrantWorkflowId } from '../schemas/job.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import { isAgentVersion, type WorkflowHead, type WorkflowVersion } from '../schemas/workflow-record.ts';

/** `granted`, `withdrawn` (it will not run), or `unknown` (a lookup failed: promise nothing). */
export type GrantState = 'granted' | 'withdrawn' | 'unknown';

type Store = Pick<RunStore, 'getWorkflowHead' | 'getWorkflowVersion'>;

/** The approved call's view in `version` and in the head's latest version (a graph: the step's node). */
type Views = {
  own: WorkflowDefinition;
  live: (latest: WorkflowVersion | undefined) => WorkflowDefinition | undefined;
};

function viewsOf(version: WorkflowVersion, approval: Approval): Views | undefined {
  if (isAgentVersion(version)) {
    const live = (latest: WorkflowVersion | undefined) =>
      latest && isAgentVersion(latest) ? latest.definition : undefined;
    return { own: version.definition, live };
  }
  const graph = version.definition;
  if (graph.kind !== 'graph') return undefined;
  const node = graph.nodes.find((candidate) => candidate.id === approval.step?.stepId);
  if (node?.type !== 'service_task') return undefined;
  const live = (latest: WorkflowVersion | undefined) =>
    liveView(latest?.definition.kind === 'graph' ? latest.definition : undefined, node.id);
  return { own: serviceStepView(graph, node), live };
}

async function liveOf(store: Store, head: WorkflowHead, version: WorkflowVersion, views: Views) {
  if (head.latestVersion === version.version) return views.own;
  return views.live(await store.getWorkflowVersion(head.owner, head.workflowId, head.latestVersion));
}

/**
 * Whether the approved call would still run, and the head revision that answer rests on (absent when it rests on
 * no head: a delegated job's, a missing head, a failed lookup). `read`: the head as just read with the approval
 * (shared/store/approvals.ts), so it is not read again.
 */
export async function grantCheckOf(
  store: Store,
  approval: Approval,
  read?: { value: WorkflowHead | undefined },
): Promise<{ state: GrantState; headRev?: number }> {
  try {
    const { owner, workflowId } = approval;
    // A delegated job's grant is checked by the Turn at dispatch; the page promises nothing either way.
    if (isGrantWorkflowId(workflowId)) return { state: 'unknown' };
    const [version, head] = await Promise.all([
      store.getWorkflowVersion(owner, workflowId, approval.workflowVersion),
      read ? read.value : store.getWorkflowHead(owner, workflowId),
    ]);
    // An agent workflow's call or a graph's service step has a policy to check; promise nothing for others.
    const views = version && viewsOf(version, approval);
    if (version === undefined || views === undefined) return { state: 'unknown' };
    if (head === undefined) return { state: 'withdrawn' };
    if (head.deleted) return { state: 'withdrawn', headRev: headRevOf(head) };
    const grant = effectiveGrant(views.own, await liveOf(store, head, version, views), head.enabled);
    return { state: grant.has(approval.tool) ? 'granted' : 'withdrawn', headRev: headRevOf(head) };
  } catch {
    return { state: 'unknown' };
  }
}

export async function grantStateOf(store: Store, approval: Approval): Promise<GrantState> {
  return (await grantCheckOf(store, approval)).state;
}

/** A head stored before revisions existed is revision 0 (shared/store/workflows.ts `headRev`). */
const headRevOf = (head: WorkflowHead): number => head.rev ?? 0;
