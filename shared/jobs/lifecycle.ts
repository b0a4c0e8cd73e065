/**
 * A job's life after admission: promotion into a free slot (in queue order), its run, and settling when
 * the run ends (giving the slot back, or queueing a retry), each followed by promoting the next. A periodic
 * sweep repeats what a crash may have left half done: it is safe to run any number of times.
 */
import { canonicalJson, sha256Hex } from '../audit/index.ts';
import { reserveFirstTurn } from '../core/first-reservation.ts';
import { limitedDefinition, withdrawnModel } from '../core/live-policy.ts';
import { prepareRun } from '../core/new-run.ts';
import { cancelRun } from '../runs/cancel-run.ts';
import { firstTurnPlanning } from '../runs/first-turn.ts';
import { launchRun } from '../runs/start-run.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import type { WorkflowVersion } from '../schemas/workflow-record.ts';
import { IdempotencyConflictError } from '../store/errors.ts';
import { isoNow, type JobsDeps } from './deps.ts';
import { effectiveMaxAttempts } from './effective.ts';
import { type GrantRef, getGrantRecord, listAllGrants } from './grant-store.ts';
import {
  activeNumbers,
  claimSlot,
  endQueuedJob,
  endStartingJob,
  getJobRecord,
  queuedPointers,
  releaseSlot,
  updateActiveJob,
} from './queue-store.ts';
import type { GrantRecord, JobRecord } from './records.ts';
import { DEFAULT_RETRY_POLICY, dispositionOf } from './retry.ts';
import { attemptDefinition, exhausted, liveAttemptLimits, settledSpend, tallyWith } from './spend.ts';
import {
  markSweepCursor,
  moveSweepCursor,
  readSweepCursor,
  rotatedGrants,
  sweepStartAfter,
} from './sweep-cursor.ts';
import {
  type GrantFailure,
  type GrantScope,
  grantFailure,
  JobsSweepError,
  SWEEP_TIME_MARGIN_MS,
  type SweepDeadline,
  type SweepProgress,
  unscoped,
} from './sweep-scope.ts';

/**
 * The earlier runs a job record keeps, newest last: 50. Every earlier run of a job under the default retry
 * policy (at most 10 attempts, the grant's maximum, and 30 capacity waits: 40 runs before the last) is kept;
 * a deployment with more capacity waits keeps the last 50, so no retry policy can grow a record past its size
 * check (record-size.ts): 50 run ids are ~2 KB of the 16 KiB a record keeps for growth. Dropped ids are not
 * lost: each run carries its job in its trigger (`trigger.jobId`, `attempt`) and `runsStarted` counts them all.
 */
export const MAX_PREVIOUS_RUN_IDS = 50;

/** `previous` with `runId` added, the oldest dropped past MAX_PREVIOUS_RUN_IDS. */
export const keptRunIds = (previous: readonly string[], runId: string): string[] =>
  [...previous, runId].slice(-MAX_PREVIOUS_RUN_IDS);

/** Run idempotency markers of jobs are kept as long as those of API starts. */
const RUN_MARKER_TTL_SECONDS = 7 * 24 * 3600;
/** Queue pointers read per page while promoting (jobs waiting for a retry time are passed over). */
const QUEUE_PAGE = 100;
/**
 * The most queued jobs one promotion looks at: more than a grant can hold (concurrency ≤ 50 running, so at most
 * 50 retries, plus maxQueued ≤ 1,000: schemas.ts), so every queued job is reached; reaching it is logged.
 */
export const QUEUE_SCAN_BOUND = 1_100;

/**
 * The definition an attempt of `job` starts with: its snapshot (what the job has left: spend.ts) under the live
 * grant `record`, each limit the lower of the two (core/live-policy.ts), as every turn of its run reads it.
 */
export function startDefinition(job: JobRecord, record: GrantRecord | undefined): WorkflowDefinition {
  const snapshot = attemptDefinition(job);
  const usable = record && !record.revoked && record.grantId === job.grantId;
  return usable ? limitedDefinition(snapshot, liveAttemptLimits(job, record)).definition : snapshot;
}

/** The snapshot a job's run is bound to, as the store resolves it (`grant_…` / job number). */
export const jobVersion = (job: JobRecord, definition = attemptDefinition(job)): WorkflowVersion => ({
  schemaVersion: 1,
  owner: job.owner,
  workflowId: job.grantId,
  version: job.number,
  definition,
  status: 'published',
  createdAt: job.createdAt,
});

/** The idempotency marker attempt `attempt` of `job` creates its run under (one run per attempt). */
const attemptMarker = (deps: JobsDeps, job: JobRecord, attempt: number) => ({
  scope: `job:${job.jobId}`,
  key: `run-${attempt}`,
  expiresAtEpoch: Math.floor(deps.clock.nowMs() / 1000) + RUN_MARKER_TTL_SECONDS,
});

/**
 * Creates (once per attempt) and starts the run of a job holding a slot, and records it on the job. The run's
 * deadline and turn 0's reservation come from the live grant `record` ∩ the snapshot (read when not given; a
 * revoked or missing grant leaves the snapshot, and the run's first turn ends it `denied`).
 *
 * A cancel marked on the job while `starting` (service.ts cancelJob) is honoured: read before the run is
 * created, the job ends `cancelled` without a run (endCancelledStart); marked while the run was being created,
 * the write recording it (conditional on no cancel) fails, and the run is recorded with the cancel and
 * cancelled. Either way no run of a cancelled job is left running.
 */
export async function startJobRun(
  deps: JobsDeps,
  job: JobRecord,
  record?: GrantRecord | undefined,
): Promise<void> {
  if (job.state !== 'starting') return;
  const attempt = job.runsStarted + 1;
  if (job.cancelRequested) return endCancelledStart(deps, job, attempt);
  const live = record ?? (await getGrantRecord(deps.store.ctx, job.owner, job.clientId));
  const definition = startDefinition(job, live);
  const created = prepareRun({
    version: jobVersion(job, definition),
    trigger: {
      type: 'job',
      jobId: job.jobId,
      clientId: job.clientId,
      grantId: job.grantId,
      grantVersion: job.constraints.grantVersion,
      attempt,
    },
    input: job.prompt,
    clock: deps.clock,
    ids: deps.ids,
    actor: `client:${job.clientId}`,
  });
  // Turn 0's reservation under the same limits; the live grant can still narrow its tools.
  const prepared = reserveFirstTurn(
    created,
    definition,
    deps.firstTurn ?? firstTurnPlanning(deps.models),
    deps.clock,
  );
  const { scope, key, expiresAtEpoch } = attemptMarker(deps, job, attempt);
  let run: Run;
  try {
    ({ run } = await launchRun(deps, prepared, {
      scope,
      key,
      requestHash: sha256Hex(canonicalJson({ jobId: job.jobId, attempt })),
      expiresAtEpoch,
    }));
  } catch (error) {
    // A cancel ended the job before its run was created and took the attempt's marker (endStartingJob):
    // nothing was created, nothing to record.
    if (error instanceof IdempotencyConflictError) return;
    throw error;
  }
  const now = isoNow(deps.clock);
  const running: JobRecord = {
    ...job,
    state: 'running',
    runId: run.runId,
    runsStarted: attempt,
    startedAt: job.startedAt ?? now,
    updatedAt: now,
  };
  if (await updateActiveJob(deps.store.ctx, running, { state: 'starting', cancelRequested: false })) return;
  // Not recorded: a cancel was marked while the run was being created (or another start recorded it first).
  const current = await getJobRecord(deps.store.ctx, job.grantId, job.number);
  if (current?.state === 'starting') {
    if (current.cancelRequested) await cancelStartedRun(deps, current, run.runId, attempt);
    // Otherwise the write lost to contention only: the sweep records the same run (its marker) later.
    return;
  }
  if (current?.state === 'running' && current.runId === run.runId) return;
  // Fail closed: a run that no job holds is cancelled, never left running.
  await cancelRun(deps, { owner: job.owner, runId: run.runId, actor: `client:${job.clientId}` });
}

/**
 * Records run `runId` of attempt `attempt` on `job` (`starting`, its cancel marked) as running with the cancel,
 * then cancels the run and settles the job: it ends `cancelled` with that run (settleJobRun).
 */
async function cancelStartedRun(deps: JobsDeps, job: JobRecord, runId: string, attempt: number) {
  const now = isoNow(deps.clock);
  await updateActiveJob(
    deps.store.ctx,
    {
      ...job,
      state: 'running',
      runId,
      runsStarted: attempt,
      startedAt: job.startedAt ?? now,
      updatedAt: now,
    },
    { state: 'starting', cancelRequested: true },
  );
  const run = await cancelRun(deps, { owner: job.owner, runId, actor: `client:${job.clientId}` });
  if (run) await settleJobRun(deps, run);
}

/**
 * Ends `job` (`starting`, its cancel marked) cancelled before its run exists, taking the attempt's run marker in
 * the same transaction so no start creates the run afterwards (queue-store.ts endStartingJob). If the run was
 * created first, it is recorded and cancelled instead. Then the freed slot promotes the next queued job.
 */
async function endCancelledStart(deps: JobsDeps, job: JobRecord, attempt: number): Promise<void> {
  const now = isoNow(deps.clock);
  const { notBefore: _notBefore, retry: _retry, runId: _runId, ...rest } = job;
  const ended: JobRecord = {
    ...rest,
    state: 'ended',
    final: {
      status: 'cancelled',
      stopReason: 'cancelled',
      error: { name: 'Cancelled', message: 'the job was cancelled by its client before its run started' },
    },
    endedAt: now,
    updatedAt: now,
  };
  const { scope, key, expiresAtEpoch } = attemptMarker(deps, job, attempt);
  const result = await endStartingJob(
    deps.store.ctx,
    ended,
    { owner: job.owner, scope, key, expiresAtEpoch },
    Math.floor(deps.clock.nowMs() / 1000),
  );
  if (result.outcome === 'run') await cancelStartedRun(deps, job, result.runId, attempt);
  if (result.outcome === 'ended')
    await promoteQueued(deps, { owner: job.owner, grantId: job.grantId, clientId: job.clientId });
}

/** Ends a queued job without a run (cancelled, or refused because its grant was revoked). */
export async function endQueued(
  deps: JobsDeps,
  job: JobRecord,
  final: NonNullable<JobRecord['final']>,
): Promise<boolean> {
  const now = isoNow(deps.clock);
  const { notBefore: _notBefore, retry: _retry, ...rest } = job;
  return endQueuedJob(deps.store.ctx, { ...rest, state: 'ended', final, endedAt: now, updatedAt: now });
}

/**
 * Promotes queued jobs of a grant, oldest first, while the live grant has free slots. A revoked (or
 * missing) grant ends its queued jobs `denied` instead: they never start; so does a grant that withdrew a
 * job's model, and a retry whose attempts ran out under the live grant's lower `maxAttempts` ends `failed`.
 * Jobs waiting for their retry time are passed over: the queue is read page by page on from the last job looked
 * at, until a job is claimed and the quota is full, or the queue ends, or QUEUE_SCAN_BOUND jobs were looked at
 * (logged).
 */
export async function promoteQueued(deps: JobsDeps, ref: GrantRef): Promise<number> {
  const { owner, grantId, clientId } = ref;
  let promoted = 0;
  let looked = 0;
  let after: number | undefined;
  for (;;) {
    const page = await queuedPointers(deps.store.ctx, grantId, QUEUE_PAGE, after);
    if (page.length === 0) return promoted;
    const grant = await getGrantRecord(deps.store.ctx, owner, clientId);
    for (const pointer of page) {
      if (looked >= QUEUE_SCAN_BOUND) {
        warn(deps, 'job queue scan bound reached: later queued jobs wait for the next promotion', {
          grantId,
          looked,
          nextJobNumber: pointer.number,
        });
        return promoted;
      }
      looked++;
      after = pointer.number;
      const outcome = await promoteOne(deps, grantId, pointer, grant);
      if (outcome === 'full') return promoted;
      if (outcome === 'claimed') promoted++;
    }
  }
}

/** What promoting one queued job did: started it, found the quota full, or passed over or ended it. */
type PromoteOutcome = 'claimed' | 'full' | 'next';

async function promoteOne(
  deps: JobsDeps,
  grantId: string,
  pointer: { number: number; notBefore?: string },
  grant: GrantRecord | undefined,
): Promise<PromoteOutcome> {
  const nowMs = deps.clock.nowMs();
  const revoked = !grant || grant.revoked || grant.grantId !== grantId;
  // A retry not yet due, known from its pointer: its job is not read (a revoked grant still ends it below).
  if (!revoked && pointer.notBefore && Date.parse(pointer.notBefore) > nowMs) return 'next';
  const job = await getJobRecord(deps.store.ctx, grantId, pointer.number);
  if (job?.state !== 'queued') return 'next';
  if (revoked) {
    await endQueued(deps, job, {
      status: 'denied',
      stopReason: 'policy_denied',
      error: { name: 'GrantRevoked', message: 'the delegation grant was revoked before the job started' },
    });
    return 'next';
  }
  if (job.notBefore && Date.parse(job.notBefore) > nowMs) return 'next';
  const limits = liveAttemptLimits(job, grant);
  const withdrawn = withdrawnModel(job.definition, limits);
  if (withdrawn) {
    await endQueued(deps, job, {
      status: 'denied',
      stopReason: 'policy_denied',
      error: { name: 'ModelWithdrawn', message: `${withdrawn} before the job started` },
    });
    return 'next';
  }
  // Attempts run out under the live grant (lowered since the retry was queued: effective.ts): it ends here as
  // the settle would have ended it, instead of starting another attempt.
  const maxAttempts = effectiveMaxAttempts(job, grant);
  if (job.attemptsMade >= maxAttempts) {
    const spent = `gave up after ${job.attemptsMade} attempts, the most its grant now allows (${maxAttempts}; admitted with ${job.constraints.maxAttempts})`;
    await endQueued(deps, job, {
      status: 'failed',
      stopReason: 'error',
      error: {
        name: 'AttemptsSpent',
        // The failure that queued the retry, as the settle would have ended the job with it.
        message: `${job.retry?.reason ?? 'a transient fault'} (not retried: ${spent})`,
      },
    });
    return 'next';
  }
  // Nothing left under the snapshot ∩ the live grant (a retry's spent budget, or a grant narrowed below what
  // the job spent; a retry queued before the job's tally existed counts its attempts as all they were given):
  // it ends here instead of starting a run with no budget.
  const { budget } = startDefinition(job, grant);
  if (exhausted({ usd: budget.maxUsdPerRun, turns: budget.maxTurns })) {
    const spent = settledSpend(job);
    const ceilingUsd = Math.min(job.constraints.budget.maxUsdPerJob, grant.grant.maxUsdPerJob);
    const ceilingTurns = Math.min(job.constraints.maxTurns, grant.grant.maxTurns);
    await endQueued(deps, job, {
      status: 'failed',
      stopReason: 'budget_exceeded',
      error: {
        name: 'JobBudgetSpent',
        message: `${job.previousRunIds.length > 0 ? 'not retried' : 'not started'}: the job's budget is spent ($${spent.usd} of $${ceilingUsd}, ${spent.turns} of ${ceilingTurns} turns)`,
      },
    });
    return 'next';
  }
  const now = isoNow(deps.clock);
  const { notBefore: _notBefore, ...rest } = job;
  const next: JobRecord = { ...rest, state: 'starting', updatedAt: now };
  const claim = await claimSlot(deps.store.ctx, job, grant.grant.concurrency, next);
  if (claim === 'full') return 'full';
  if (claim !== 'claimed') return 'next';
  await startJobRun(deps, next, grant);
  return 'claimed';
}

/** A structured warning line (CloudWatch Logs keeps a Lambda's stderr). */
function warn(deps: JobsDeps, message: string, fields: Record<string, unknown>): void {
  if (deps.log) deps.log.warn(message, fields);
  else console.error(JSON.stringify({ level: 'WARN', message, ...fields }));
}

/**
 * Settles the job of a run that ended: the slot goes back, or the job is queued again for a retry (retry.ts).
 * Idempotent: a job already settled for this run is left alone. Then promotes the next queued job.
 */
export async function settleJobRun(deps: JobsDeps, run: Run): Promise<void> {
  if (run.trigger.type !== 'job' || !isTerminalRunStatus(run.status)) return;
  const { grantId, clientId } = run.trigger;
  const job = await getJobRecord(deps.store.ctx, grantId, run.workflowVersion);
  if (job && job.state === 'running' && job.runId === run.runId) {
    // Refused rows were never dispatched; any other row may have had an effect.
    const dispatched = (await deps.store.listLedger(run.runId)).filter(
      (row) => row.status !== 'refused',
    ).length;
    // The attempt's spend joins the job's tally in the write that settles it (spend.ts).
    const tally = tallyWith(job, run);
    const policy = deps.retry ?? DEFAULT_RETRY_POLICY;
    let disposition = dispositionOf(run, { ...job, ...tally }, dispatched, policy);
    if (disposition.kind !== 'final') {
      // Another run is due: counted against the live grant's maxAttempts too, when lower (effective.ts). Fail
      // closed: a grant read that fails throws here, and the job is settled (and its retry decided) later.
      const live = await getGrantRecord(deps.store.ctx, job.owner, job.clientId);
      const maxAttempts = effectiveMaxAttempts(job, live);
      disposition = dispositionOf(run, { ...job, ...tally }, dispatched, policy, maxAttempts);
    }
    const now = isoNow(deps.clock);
    const { runId: _runId, retry: _retry, ...rest } = job;
    const carried = {
      ...rest,
      ...tally,
      previousRunIds: keptRunIds(job.previousRunIds, run.runId),
      updatedAt: now,
    };
    if (disposition.kind === 'final') {
      const stopReason = disposition.stopReason ?? run.stopReason;
      await releaseSlot(
        deps.store.ctx,
        {
          ...job,
          ...tally,
          state: 'ended',
          attemptsMade: job.attemptsMade + 1,
          final: {
            status: disposition.status ?? (run.status as 'done' | 'failed' | 'denied' | 'cancelled'),
            ...(stopReason ? { stopReason } : {}),
            ...(run.error
              ? {
                  error: {
                    name: run.error.name,
                    message: disposition.note
                      ? `${run.error.message} (${disposition.note})`
                      : run.error.message,
                  },
                }
              : {}),
          },
          endedAt: now,
          updatedAt: now,
        },
        { state: 'running', runId: run.runId },
      );
    } else {
      const nextAttemptAt = new Date(deps.clock.nowMs() + disposition.delayMs).toISOString();
      await releaseSlot(
        deps.store.ctx,
        {
          ...carried,
          state: 'queued',
          attemptsMade: job.attemptsMade + (disposition.kind === 'backoff' ? 1 : 0),
          capacityWaits: job.capacityWaits + (disposition.kind === 'capacity' ? 1 : 0),
          notBefore: nextAttemptAt,
          retry: { disposition: disposition.kind, reason: disposition.reason, nextAttemptAt },
        },
        { state: 'running', runId: run.runId },
      );
    }
  }
  await promoteQueued(deps, { owner: run.owner, grantId, clientId });
}

/** Settles the job of run `runId` if it is a job's run (Deliver and MarkFailed call this when a run ends). */
export async function settleJobOfRun(deps: JobsDeps, runId: string): Promise<void> {
  const run = await deps.store.getRun(runId);
  if (run) await settleJobRun(deps, run);
}

/**
 * The sweep: for every grant, finish what a crash left behind (a slot taken but no run started, a run ended
 * but its job not settled), then promote queued jobs into free slots (and retries whose time has come). Each
 * grant is swept in `scope` and on its own: one grant's fault (a throttled start, a bad item) is recorded and
 * the next grant is swept all the same; the faults are thrown as one `JobsSweepError` at the end.
 *
 * Grants are walked from just after the last one a sweep handled, wrapping around (sweep-cursor.ts), and the
 * cursor moves after each grant, fault or not. With a `deadline`, no grant is started with less than
 * SWEEP_TIME_MARGIN_MS left: the sweep stops there, tells `deadline.stoppedEarly`, and the next sweep goes on
 * with the grants this one did not reach. A sweep that finds the cursor moved by another stops too.
 *
 * Each grant is marked on the cursor before it is swept: a sweep that finds a grant marked (the last sweep was
 * cut off in it, or is still in it) starts after that grant and sweeps it last, says so (a warning), and
 * answers it as `passedGrantId`.
 */
export async function sweepJobs(
  deps: JobsDeps,
  scope: GrantScope = unscoped,
  deadline?: SweepDeadline,
): Promise<SweepProgress> {
  const { ctx } = deps.store;
  const grants = await listAllGrants(ctx);
  let cursor = await readSweepCursor(ctx);
  const progress: SweepProgress = { grants: grants.length, handled: 0, promoted: 0 };
  if (cursor?.inGrantId !== undefined) {
    progress.passedGrantId = cursor.inGrantId;
    warn(deps, 'jobs sweep starts after a grant the last sweep did not finish; that grant is swept last', {
      grantId: cursor.inGrantId,
    });
  }
  const failures: GrantFailure[] = [];
  for (const ref of rotatedGrants(grants, sweepStartAfter(cursor))) {
    if (deadline && deadline.remainingMs() < SWEEP_TIME_MARGIN_MS) {
      progress.stoppedEarly = 'deadline';
      break;
    }
    const marked = await markSweepCursor(ctx, cursor, ref.grantId, isoNow(deps.clock));
    if (!marked) {
      progress.stoppedEarly = 'overtaken';
      warn(deps, 'jobs sweep overtaken: another sweep moved the cursor, this one stops', { ...progress });
      break;
    }
    cursor = marked;
    try {
      progress.promoted += await scope(ref, () => sweepGrant(deps, ref));
    } catch (error) {
      failures.push(grantFailure(ref.grantId, error));
    }
    progress.handled++;
    const moved = await moveSweepCursor(ctx, cursor, ref.grantId, isoNow(deps.clock));
    if (!moved) {
      progress.stoppedEarly = 'overtaken';
      warn(deps, 'jobs sweep overtaken: another sweep moved the cursor, this one stops', { ...progress });
      break;
    }
    cursor = moved;
    progress.afterGrantId = ref.grantId;
  }
  if (progress.stoppedEarly === 'deadline') deadline?.stoppedEarly?.(progress);
  if (failures.length > 0) throw new JobsSweepError(failures, progress);
  return progress;
}

async function sweepGrant(deps: JobsDeps, ref: GrantRef): Promise<number> {
  const { grantId } = ref;
  for (const n of await activeNumbers(deps.store.ctx, grantId)) {
    const job = await getJobRecord(deps.store.ctx, grantId, n);
    if (!job) continue;
    if (job.state === 'starting') await startJobRun(deps, job);
    if (job.state === 'running' && job.runId) {
      const run = await deps.store.getRun(job.runId);
      if (run && isTerminalRunStatus(run.status)) await settleJobRun(deps, run);
    }
  }
  return promoteQueued(deps, ref);
}
