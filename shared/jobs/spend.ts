/**
 * A job's cost ceiling (`maxUsdPerJob`) and turn cap (`maxTurns`) hold for the job, across its attempts: each
 * attempt is a fresh run whose own ceiling and cap are what the job has left (docs/jobs.md). The job record
 * keeps the tally of its settled attempts (`spentUsd`, `turnsUsed`), added in the same write that settles an
 * attempt (lifecycle.ts); no attempt starts when nothing is left. Fail closed: a spend that is not known counts
 * as all the attempt had (a run ended with a reservation outstanding, or a record with earlier attempts but
 * no tally, from before the tally existed; the attempt such a record was running keeps the budget it was
 * admitted with: attemptDefinition).
 */
import type { DelegationLimits } from '../core/live-policy.ts';
import { roundUsd } from '../core/pricing.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import type { GrantRecord, JobRecord } from './records.ts';

export type JobSpend = { usd: number; turns: number };

type JobBudgetView = Pick<JobRecord, 'constraints' | 'previousRunIds' | 'spentUsd' | 'turnsUsed'>;

const ceilingOf = (job: JobBudgetView): JobSpend => ({
  usd: job.constraints.budget.maxUsdPerJob,
  turns: job.constraints.maxTurns,
});

/** What the job's settled attempts spent. */
export function settledSpend(job: JobBudgetView): JobSpend {
  if (job.spentUsd !== undefined) return { usd: job.spentUsd, turns: job.turnsUsed ?? 0 };
  // Attempts made before the tally existed: their spend is unknown, so it is all of it.
  return job.previousRunIds.length > 0 ? ceilingOf(job) : { usd: 0, turns: 0 };
}

/** What the job has left for its next attempt (never below 0). */
export function remainingSpend(job: JobBudgetView): JobSpend {
  const ceiling = ceilingOf(job);
  const spent = settledSpend(job);
  return {
    usd: Math.max(0, roundUsd(ceiling.usd - spent.usd)),
    turns: Math.max(0, ceiling.turns - spent.turns),
  };
}

/** Nothing left: no further attempt may start. */
export const exhausted = (left: JobSpend): boolean => left.usd <= 0 || left.turns <= 0;

/**
 * What the attempt of ended run `run` spent: its cost and model calls; with a reservation still outstanding
 * the cost is not settled, so the attempt counts as having spent all it was given.
 */
export function attemptSpend(job: JobBudgetView, run: Pick<Run, 'costUsd' | 'modelCalls' | 'reservation'>) {
  return run.reservation ? remainingSpend(job) : { usd: run.costUsd, turns: run.modelCalls };
}

/** The job's tally once `run`'s attempt is settled. */
export function tallyWith(
  job: JobBudgetView,
  run: Pick<Run, 'costUsd' | 'modelCalls' | 'reservation'>,
): Pick<JobRecord, 'spentUsd' | 'turnsUsed'> {
  const spent = settledSpend(job);
  const attempt = attemptSpend(job, run);
  return { spentUsd: roundUsd(spent.usd + attempt.usd), turnsUsed: spent.turns + attempt.turns };
}

/**
 * The definition an attempt runs: the job's snapshot, its run's ceiling and turn cap what the job has left.
 * An attempt already running on a record with no tally was admitted before the tally existed (a new attempt
 * of such a record with earlier attempts never starts: promoteQueued ends it, its budget counted spent), with
 * the snapshot's own budget: it keeps that budget to its end, instead of reading "nothing left" at its next
 * turn. Its spend joins the tally when it settles (tallyWith).
 */
export function attemptDefinition(
  job: JobBudgetView & Pick<JobRecord, 'runId'> & { definition: WorkflowDefinition },
): WorkflowDefinition {
  if (job.spentUsd === undefined && job.runId !== undefined) return job.definition;
  const left = remainingSpend(job);
  return {
    ...job.definition,
    budget: { ...job.definition.budget, maxUsdPerRun: left.usd, maxTurns: left.turns },
  };
}

/**
 * What the live grant `record` leaves an attempt of `job`, in the run's terms (core/live-policy.ts): its per-job
 * cost ceiling and turn cap less what the job's settled attempts spent, its day ceiling, timeout and models.
 * Undefined when `record` is the version the job was admitted under: its snapshot holds the same limits. The
 * running attempt of a record from before the tally is measured alone, as attemptDefinition measures it.
 */
export function liveAttemptLimits(
  job: JobBudgetView & Pick<JobRecord, 'runId'>,
  record: Pick<GrantRecord, 'version' | 'grant'>,
): DelegationLimits | undefined {
  if (record.version === job.constraints.grantVersion) return undefined;
  const grant = record.grant;
  const legacyAttempt = job.spentUsd === undefined && job.runId !== undefined;
  const spent = legacyAttempt ? { usd: 0, turns: 0 } : settledSpend(job);
  return {
    models: grant.models,
    maxUsdPerRun: Math.max(0, roundUsd(grant.maxUsdPerJob - spent.usd)),
    maxTurns: Math.max(0, grant.maxTurns - spent.turns),
    ...(grant.maxUsdPerDay === undefined ? {} : { maxUsdPerDay: grant.maxUsdPerDay }),
    runTimeoutSeconds: grant.jobTimeoutSeconds,
  };
}
