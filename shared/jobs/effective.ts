/**
 * The constraints a job runs under now: what it was admitted with (its snapshot) under the live grant, each
 * the stricter of the two, as the core applies them (core/live-policy.ts, at every turn of its run and when
 * it starts): a tool the live grant no longer allows is `deny`, otherwise its stricter gate; turns, the job's
 * and the day's cost ceilings, the timeout and `maxAttempts` the lower of the two (attempts as the retry decision
 * counts them: retry.ts when a run settles, lifecycle.ts promoteOne before the next attempt starts). `model` is
 * the admitted one (a withdrawn model ends the job `denied`). Pure.
 */
import type { GateMode } from '../schemas/gate.ts';
import type { GrantRecord, JobRecord } from './records.ts';
import { grantGateOf } from './resolve.ts';
import type { JobConstraints } from './schemas.ts';

const STRICTNESS: Record<GateMode, number> = { allow: 0, needs_approval: 1, deny: 2 };
const stricter = (a: GateMode, b: GateMode): GateMode => (STRICTNESS[a] >= STRICTNESS[b] ? a : b);

/** The live grant as the view needs it (a client's GrantRecord, or the owner's GrantView). */
export type LiveGrant = Pick<GrantRecord, 'grantId' | 'version' | 'revoked' | 'grant'>;

/** Whether `live` is `job`'s own grant, not revoked, and moved since the job was admitted (so may narrow it). */
const narrows = (
  job: Pick<JobRecord, 'grantId' | 'constraints'>,
  live: LiveGrant | undefined,
): live is LiveGrant =>
  !!live && !live.revoked && live.grantId === job.grantId && live.version !== job.constraints.grantVersion;

/**
 * The attempts `job` may make under `live`: the lower of its snapshot's and the live grant's `maxAttempts`. A
 * revoked or missing grant leaves the snapshot's: such a job never starts another attempt (promoteOne ends it
 * `denied`), and its client is refused before reading it.
 */
export function effectiveMaxAttempts(
  job: Pick<JobRecord, 'grantId' | 'constraints'>,
  live: LiveGrant | undefined,
): number {
  const admitted = job.constraints.maxAttempts;
  return narrows(job, live) ? Math.min(admitted, live.grant.maxAttempts) : admitted;
}

/**
 * `job`'s constraints under `live`: its admitted ones while the grant is the version it was admitted under
 * (nothing narrowed), and when there is no live grant of its own to read (revoked, missing: its run ends
 * `denied` at its next turn, and its client is refused before reading it).
 */
export function effectiveConstraints(
  job: Pick<JobRecord, 'grantId' | 'constraints'>,
  live: LiveGrant | undefined,
): JobConstraints {
  const admitted = job.constraints;
  if (!narrows(job, live)) return admitted;
  const grant = live.grant;
  const day =
    grant.maxUsdPerDay === undefined
      ? admitted.budget.maxUsdPerDay
      : Math.min(admitted.budget.maxUsdPerDay ?? Number.POSITIVE_INFINITY, grant.maxUsdPerDay);
  return {
    tools: admitted.tools.map(({ name, gate }) => ({
      name,
      gate: grant.actions.includes(name) ? stricter(gate, grantGateOf(grant, name)) : 'deny',
    })),
    model: admitted.model,
    maxTurns: Math.min(admitted.maxTurns, grant.maxTurns),
    budget: {
      maxUsdPerJob: Math.min(admitted.budget.maxUsdPerJob, grant.maxUsdPerJob),
      ...(day === undefined ? {} : { maxUsdPerDay: day }),
    },
    timeoutSeconds: Math.min(admitted.timeoutSeconds, grant.jobTimeoutSeconds),
    maxAttempts: effectiveMaxAttempts(job, live),
    grantVersion: live.version,
  };
}
