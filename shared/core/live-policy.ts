/**
 * The live policy of a delegated job's run (docs/jobs.md): the client's live grant, read through the
 * `DelegationPort` (one read per turn, never cached), intersected with the job's snapshot at every turn
 * (turn-context.ts), so narrowing or revoking a grant refuses even a call the model already proposed or an
 * approver approved. A saved workflow's live policy is its head and latest version (turn-context.ts).
 */
import type { Run } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import { type EffectiveGrant, effectiveGrant } from './gate.ts';

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
