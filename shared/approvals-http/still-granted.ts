/**
 * Whether an approved call would still run: the Turn dispatches an approved call only if the action is still
 * in the effective grant (the run's version ∩ the workflow's latest version, and the workflow enabled). The
 * approval pages say so before and after a decision, so an approver is never told "the run performs it" when
 * the action was withdrawn since it was requested.
 */
import { effectiveGrant } from '../core/gate.ts';
import type { RunStore } from '../core/store-port.ts';
import type { Approval } from '../schemas/approval.ts';
import { isGrantWorkflowId } from '../schemas/job.ts';
import { isAgentVersion } from '../schemas/workflow-record.ts';

/** `granted`, `withdrawn` (it will not run), or `unknown` (a lookup failed: promise nothing). */
export type GrantState = 'granted' | 'withdrawn' | 'unknown';

export async function grantStateOf(
  store: Pick<RunStore, 'getWorkflowHead' | 'getWorkflowVersion'>,
  approval: Approval,
): Promise<GrantState> {
  try {
    const { owner, workflowId } = approval;
    // A delegated job's grant is checked by the Turn at dispatch; the page promises nothing either way.
    if (isGrantWorkflowId(workflowId)) return 'unknown';
    const [version, head] = await Promise.all([
      store.getWorkflowVersion(owner, workflowId, approval.workflowVersion),
      store.getWorkflowHead(owner, workflowId),
    ]);
    // Only agent workflows have an allow-set to check; promise nothing for any other kind.
    if (version === undefined || !isAgentVersion(version)) return 'unknown';
    if (head === undefined) return 'withdrawn';
    const live =
      head.latestVersion === version.version
        ? version
        : await store.getWorkflowVersion(owner, workflowId, head.latestVersion);
    const liveDefinition = live && isAgentVersion(live) ? live.definition : undefined;
    const grant = effectiveGrant(version.definition, liveDefinition, head.enabled);
    return grant.has(approval.tool) ? 'granted' : 'withdrawn';
  } catch {
    return 'unknown';
  }
}
