/**
 * The live policy of a delegated job's run (docs/jobs.md): the client's live grant, read through the
 * `DelegationPort` (one read per turn, never cached), intersected with the job's snapshot at every turn
 * (turn-context.ts), so narrowing or revoking a grant refuses even a call the model already proposed or an
 * approver approved. A saved workflow's live policy is its head and latest version (turn-context.ts).
 */
import type { Run } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import type { WorkflowHead } from '../schemas/workflow-record.ts';
import { type EffectiveGrant, effectiveGrant } from './gate.ts';

/**
 * What a workflow head lets run: its latest version while the workflow is enabled and not deleted; undefined
 * (nothing may run) otherwise, a missing head included (fail closed). Every kind's live policy starts here: an
 * agent turn (turn-context.ts), a graph service step (graph-run/service-policy.ts), an external run
 * (external/run/live-policy.ts) and a delivery (deliver.ts).
 */
export function liveVersionOf(head: WorkflowHead | undefined): number | undefined {
  return head?.enabled === true && !head.deleted ? head.latestVersion : undefined;
}

/**
 * The write condition that the run's workflow head still says what was read or assumed: enabled, not deleted,
 * `latestVersion` its latest (store `RunChange.liveHead`: a ConditionCheck in the same transaction, no request).
 */
export const liveHeadCondition = (run: Pick<Run, 'owner' | 'workflowId'>, latestVersion: number) => ({
  liveHead: { owner: run.owner, workflowId: run.workflowId, latestVersion },
});

/** A client's live grant as the gate needs it: revoked, or which actions it allows with which gates. */
export type LiveDelegation =
  | { revoked: true }
  | { revoked: false; allowedActions: readonly string[]; gates: WorkflowDefinition['gates'] };

/** Reads the live grant a delegated job's run is bound to; undefined when it no longer exists. */
export interface DelegationPort {
  liveGrant(run: Run): Promise<LiveDelegation | undefined>;
}

/** What the live grant leaves of a job's snapshot: its effective grant, or why the job may not go on. */
export type DelegatedPolicy = { grant: EffectiveGrant; enabled: boolean; refusal?: string };

/** Reads the live grant (fail closed: without a port, or without a grant, the job may do nothing). */
export async function readDelegation(
  deps: { delegation?: DelegationPort | undefined },
  run: Run,
): Promise<LiveDelegation | undefined> {
  return deps.delegation ? deps.delegation.liveGrant(run) : undefined;
}

/** Snapshot ∩ live grant, the stricter gate winning (the same intersection as a workflow's live policy). */
export function delegatedPolicy(
  snapshot: WorkflowDefinition,
  live: LiveDelegation | undefined,
): DelegatedPolicy {
  if (!live || live.revoked)
    return { grant: new Map(), enabled: false, refusal: 'the delegation grant was revoked' };
  const current = { ...snapshot, allowedActions: [...live.allowedActions], gates: live.gates };
  return { grant: effectiveGrant(snapshot, current, true), enabled: true };
}
