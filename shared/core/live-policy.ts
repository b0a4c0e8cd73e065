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

/**
 * What the live grant leaves an attempt of a job, in the run's own terms (the store computes it from the grant
 * and what the job's earlier attempts spent, shared/jobs/spend.ts): its models (ids or roles, as the grant
 * names them), the run's cost ceiling and turn cap (the grant's per-job limits less the job's settled spend),
 * the day's ceiling of all the client's jobs and the run's timeout. Absent when the grant is the version the job
 * was admitted under (nothing to narrow: the snapshot holds the same limits).
 */
export type DelegationLimits = {
  models: readonly string[];
  maxUsdPerRun: number;
  maxTurns: number;
  maxUsdPerDay?: number;
  runTimeoutSeconds: number;
};

/** A client's live grant as the gate needs it: revoked, or which actions it allows with which gates. */
export type LiveDelegation =
  | { revoked: true }
  | {
      revoked: false;
      allowedActions: readonly string[];
      gates: WorkflowDefinition['gates'];
      limits?: DelegationLimits;
    };

/** Reads the live grant a delegated job's run is bound to; undefined when it no longer exists. */
export interface DelegationPort {
  liveGrant(run: Run): Promise<LiveDelegation | undefined>;
}

/**
 * What the live grant leaves of a job's snapshot: its effective grant, the definition the turn runs (the
 * snapshot's budget lowered to the live limits), or why the job may not go on. `narrowed`: the live limits
 * lowered the snapshot's budget, so a reservation made ahead under the old ceilings is not spent (model-step.ts).
 */
export type DelegatedPolicy = {
  grant: EffectiveGrant;
  enabled: boolean;
  refusal?: string;
  definition: WorkflowDefinition;
  narrowed?: true;
};

/** Reads the live grant (fail closed: without a port, or without a grant, the job may do nothing). */
export async function readDelegation(
  deps: { delegation?: DelegationPort | undefined },
  run: Run,
): Promise<LiveDelegation | undefined> {
  return deps.delegation ? deps.delegation.liveGrant(run) : undefined;
}

/** The model a job's definition names, as its grant names it (an id or a role). */
const modelNameOf = (definition: WorkflowDefinition) => definition.model.id ?? definition.model.role ?? '';

/**
 * Why the live limits leave a job's snapshot nothing to run: its model was withdrawn from the grant.
 * Undefined when the snapshot may run (its budget lowered by `limitedDefinition`).
 */
export function withdrawnModel(snapshot: WorkflowDefinition, limits: DelegationLimits | undefined) {
  const model = modelNameOf(snapshot);
  return limits && !limits.models.includes(model)
    ? `the model '${model}' was withdrawn from the delegation grant`
    : undefined;
}

/**
 * The snapshot's definition under the live limits: each of the run's cost ceiling, turn cap, day ceiling and
 * timeout the lower of the two (a day ceiling the snapshot lacks is the live one's). Pure; the same when no
 * limit is lower.
 */
export function limitedDefinition(
  snapshot: WorkflowDefinition,
  limits: DelegationLimits | undefined,
): { definition: WorkflowDefinition; narrowed: boolean } {
  if (!limits) return { definition: snapshot, narrowed: false };
  const own = snapshot.budget;
  const day =
    limits.maxUsdPerDay === undefined
      ? own.maxUsdPerDay
      : Math.min(own.maxUsdPerDay ?? Number.POSITIVE_INFINITY, limits.maxUsdPerDay);
  const budget = {
    ...own,
    maxUsdPerRun: Math.min(own.maxUsdPerRun, limits.maxUsdPerRun),
    maxTurns: Math.min(own.maxTurns, limits.maxTurns),
    ...(day === undefined ? {} : { maxUsdPerDay: day }),
    runTimeoutSeconds: Math.min(own.runTimeoutSeconds, limits.runTimeoutSeconds),
  };
  // What a reservation is checked against (the timeout is not): model-step.ts.
  const narrowed =
    budget.maxUsdPerRun < own.maxUsdPerRun ||
    budget.maxTurns < own.maxTurns ||
    budget.maxUsdPerDay !== own.maxUsdPerDay;
  const same = !narrowed && budget.runTimeoutSeconds === own.runTimeoutSeconds;
  return { definition: same ? snapshot : { ...snapshot, budget }, narrowed };
}

/**
 * When run `run` times out under the definition its turn runs: a delegated job's run under its live grant's
 * timeout too (`limitedDefinition` lowers `runTimeoutSeconds`), counted from the run's creation as its
 * `deadlineAt` was (new-run.ts), never later than that; so a lowered `jobTimeoutSeconds` reaches a running job
 * at its next turn, as the other live limits do. Any other run keeps the deadline it was created with.
 */
export function runDeadlineMs(
  run: Pick<Run, 'trigger' | 'createdAt' | 'deadlineAt'>,
  definition: WorkflowDefinition,
): number {
  const created = Date.parse(run.deadlineAt);
  if (run.trigger.type !== 'job') return created;
  return Math.min(created, Date.parse(run.createdAt) + definition.budget.runTimeoutSeconds * 1000);
}

/**
 * Snapshot ∩ live grant, the stricter gate winning (the same intersection as a workflow's live policy), and
 * each budget limit the lower of the two (`limitedDefinition`). Fail closed: a revoked or missing grant, or one
 * that withdrew the job's model, leaves the job nothing.
 */
export function delegatedPolicy(
  snapshot: WorkflowDefinition,
  live: LiveDelegation | undefined,
): DelegatedPolicy {
  if (!live || live.revoked)
    return {
      grant: new Map(),
      enabled: false,
      refusal: 'the delegation grant was revoked',
      definition: snapshot,
    };
  const withdrawn = withdrawnModel(snapshot, live.limits);
  if (withdrawn) return { grant: new Map(), enabled: false, refusal: withdrawn, definition: snapshot };
  const { definition, narrowed } = limitedDefinition(snapshot, live.limits);
  const current = { ...definition, allowedActions: [...live.allowedActions], gates: live.gates };
  return {
    grant: effectiveGrant(definition, current, true),
    enabled: true,
    definition,
    ...(narrowed ? { narrowed: true as const } : {}),
  };
}
