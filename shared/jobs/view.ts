/** A job as its client polls it: the job record joined with its run (status, result, usage, cost). */
import { cutText } from '../core/byte-caps.ts';
import { roundUsd } from '../core/pricing.ts';
import { ZERO_USAGE } from '../schemas/common.ts';
import type { Run } from '../schemas/run.ts';
import { effectiveConstraints, type LiveGrant } from './effective.ts';
import type { JobRecord } from './records.ts';
import type { JobStatus, JobView } from './schemas.ts';

export const MAX_ERROR_CHARS = 1000;

function statusOf(job: JobRecord, run: Run | undefined): JobStatus {
  if (job.state === 'queued') return 'queued';
  if (job.state === 'ended') return job.final?.status ?? 'failed';
  if (!run || run.status === 'pending') return 'running';
  // A run that ended but whose job is not settled yet reads as its run.
  return run.status;
}

/**
 * The job's model calls and cost over all its attempts: its settled tally (spend.ts) and, while an attempt
 * holds the slot, that attempt's run so far. A record from before the tally shows its run's alone.
 */
function totalsOf(job: JobRecord, run: Run | undefined): { turns: number; costUsd: number } {
  if (job.spentUsd === undefined) return { turns: run?.modelCalls ?? 0, costUsd: run?.costUsd ?? 0 };
  const current = run && job.state !== 'ended' && run.runId === job.runId ? run : undefined;
  return {
    turns: (job.turnsUsed ?? 0) + (current?.modelCalls ?? 0),
    costUsd: roundUsd(job.spentUsd + (current?.costUsd ?? 0)),
  };
}

/**
 * The view of `job`; `run` is its current (or last) run, `position` its queue position when queued, `live` the
 * grant as read now: `constraints` are the effective ones (effective.ts) and, once the grant moved since the
 * job was admitted, `admittedConstraints` the ones it was admitted with.
 */
export function jobView(
  job: JobRecord,
  run: Run | undefined,
  position: number | undefined,
  live: LiveGrant | undefined,
): JobView {
  const constraints = effectiveConstraints(job, live);
  const status = statusOf(job, run);
  const error = job.final?.error ?? run?.error;
  const stopReason = job.final?.stopReason ?? (run && status !== 'queued' ? run.stopReason : undefined);
  return {
    jobId: job.jobId,
    status,
    ...(status === 'queued' && position !== undefined ? { queuePosition: position } : {}),
    createdAt: job.createdAt,
    ...(job.startedAt ? { startedAt: job.startedAt } : {}),
    ...(job.endedAt
      ? { endedAt: job.endedAt }
      : run?.endedAt && status !== 'queued'
        ? { endedAt: run.endedAt }
        : {}),
    ...(run ? { runId: run.runId } : {}),
    ...(run?.result && status !== 'queued' ? { result: run.result } : {}),
    ...(stopReason ? { stopReason } : {}),
    ...totalsOf(job, run),
    usage: run?.usage ?? { ...ZERO_USAGE },
    ...(error ? { error: { name: error.name, message: cutText(error.message, MAX_ERROR_CHARS) } } : {}),
    attempts: { made: job.attemptsMade, max: constraints.maxAttempts, capacityWaits: job.capacityWaits },
    ...(job.retry && status === 'queued' ? { retry: job.retry } : {}),
    constraints,
    ...(constraints === job.constraints ? {} : { admittedConstraints: job.constraints }),
  };
}
