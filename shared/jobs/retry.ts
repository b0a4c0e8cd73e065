/**
 * Retry disposition belongs to the runtime, not the model: when a job's run ends `failed`, this decides
 * whether the job waits for capacity (rate limit, overload: no attempt used), backs off and tries again
 * (a transient fault: one attempt used, up to `maxAttempts`, the lower of the job's snapshot and the live
 * grant), or ends with the run's verdict.
 * A fresh attempt is a fresh run; it is only made when the failed run dispatched no tool call, so a retry
 * can never repeat a side effect (the ledger of one run does not cover the next).
 */
import { cutText } from '../core/byte-caps.ts';
import type { Run, StopReason } from '../schemas/run.ts';
import type { JobRecord } from './records.ts';
import { exhausted, remainingSpend, settledSpend } from './spend.ts';

/** Errors that mean "no capacity now": the provider's rate limit or overload. */
export const CAPACITY_ERRORS: readonly string[] = ['ModelRateLimitedError', 'ModelOverloadedError'];

/** Errors that may pass: a provider or connection fault, throttling, a crashed or timed-out invocation. */
export const TRANSIENT_ERRORS: readonly string[] = [
  'ModelServerError',
  'ModelConnectionError',
  'StoreThrottledError',
  'CredentialUnavailableError',
  'States.Timeout',
  'States.TaskFailed',
  'Lambda.ServiceException',
  'Lambda.Unknown',
  'Sandbox.Timedout',
];

export type RetryPolicy = {
  /** First backoff after a transient failure; doubled per attempt. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Wait before trying again after a capacity failure. */
  capacityWaitMs: number;
  /** Capacity waits before the job gives up (they use no attempt, but are not endless). */
  maxCapacityWaits: number;
};

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  backoffBaseMs: 30_000,
  backoffMaxMs: 15 * 60_000,
  capacityWaitMs: 60_000,
  maxCapacityWaits: 30,
};

export type Disposition =
  /**
   * `stopReason`: the job's, when it is not its last run's (its budget spent: `budget_exceeded`); `status`
   * likewise (`cancelled`: its client cancelled it while the failed run would have been retried).
   */
  | { kind: 'final'; note?: string; stopReason?: StopReason; status?: 'cancelled' }
  | { kind: 'capacity' | 'backoff'; delayMs: number; reason: string };

/**
 * What to do with `job` now that its run `run` ended; `dispatched` counts the run's ledger rows. `job` carries
 * its tally with this attempt's spend added (spend.ts): a job with nothing left is not tried again.
 * `maxAttempts` is what the job may make: its snapshot's, or the lower live grant's (effective.ts
 * effectiveMaxAttempts); a job that already made that many is not tried again, capacity wait or not.
 */
export function dispositionOf(
  run: Run,
  job: JobRecord,
  dispatched: number,
  policy: RetryPolicy,
  maxAttempts: number = job.constraints.maxAttempts,
): Disposition {
  const disposition = retryDisposition(run, job, dispatched, policy, maxAttempts);
  // A cancel that raced the failure (the run had failed before the cancel reached it): the job would have
  // tried again, so it is the cancel that ends it.
  if (job.cancelRequested && disposition.kind !== 'final')
    return {
      kind: 'final',
      status: 'cancelled',
      stopReason: 'cancelled',
      note: 'not retried: the job was cancelled by its client',
    };
  return disposition;
}

function retryDisposition(
  run: Run,
  job: JobRecord,
  dispatched: number,
  policy: RetryPolicy,
  maxAttempts: number,
): Disposition {
  if (run.status !== 'failed' || run.stopReason !== 'error') return { kind: 'final' };
  const name = run.error?.name ?? '';
  const reason = cutText(`${name}: ${run.error?.message ?? ''}`, 1000);
  if (dispatched > 0)
    return { kind: 'final', note: 'not retried: the failed attempt had dispatched tool calls' };
  const retryable = CAPACITY_ERRORS.includes(name) || TRANSIENT_ERRORS.includes(name);
  const left = remainingSpend(job);
  if (retryable && exhausted(left))
    return {
      kind: 'final',
      stopReason: 'budget_exceeded',
      note: `not retried: the job's budget is spent ($${settledSpend(job).usd} of $${job.constraints.budget.maxUsdPerJob}, ${settledSpend(job).turns} of ${job.constraints.maxTurns} turns)`,
    };
  const lowered = maxAttempts < job.constraints.maxAttempts ? ', the most its grant now allows' : '';
  // Under its snapshot a job that may run again has made fewer attempts than it may; a grant lowered since
  // can leave it with none, and then not even a capacity wait (which uses none) gives it another run.
  if (retryable && job.attemptsMade >= maxAttempts)
    return { kind: 'final', note: `gave up after ${job.attemptsMade} attempts${lowered}` };
  if (CAPACITY_ERRORS.includes(name)) {
    if (job.capacityWaits >= policy.maxCapacityWaits)
      return { kind: 'final', note: `gave up after ${job.capacityWaits} capacity waits` };
    return { kind: 'capacity', delayMs: policy.capacityWaitMs, reason };
  }
  if (TRANSIENT_ERRORS.includes(name)) {
    if (job.attemptsMade + 1 >= maxAttempts)
      return { kind: 'final', note: `gave up after ${job.attemptsMade + 1} attempts${lowered}` };
    const delayMs = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** job.attemptsMade);
    return { kind: 'backoff', delayMs, reason };
  }
  return { kind: 'final' };
}
