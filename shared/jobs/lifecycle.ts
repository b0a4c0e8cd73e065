/**
 * A job's life after admission: promotion into a free slot (in queue order), its run, and settling when
 * the run ends (giving the slot back, or queueing a retry), each followed by promoting the next. A periodic
 * sweep repeats what a crash may have left half done: it is safe to run any number of times.
 */
import { canonicalJson, sha256Hex } from '../audit/index.ts';
import { reserveFirstTurn } from '../core/first-reservation.ts';
import { prepareRun } from '../core/new-run.ts';
import { firstTurnPlanning } from '../runs/first-turn.ts';
import { launchRun } from '../runs/start-run.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import type { WorkflowVersion } from '../schemas/workflow-record.ts';
import { isoNow, type JobsDeps } from './deps.ts';
import { type GrantRef, getGrantRecord, listAllGrants } from './grant-store.ts';
import {
  activeNumbers,
  claimSlot,
  endQueuedJob,
  getJobRecord,
  queuedNumbers,
  releaseSlot,
  updateActiveJob,
} from './queue-store.ts';
import type { JobRecord } from './records.ts';
import { DEFAULT_RETRY_POLICY, dispositionOf } from './retry.ts';
import { attemptDefinition, exhausted, remainingSpend, settledSpend, tallyWith } from './spend.ts';
import { type GrantFailure, type GrantScope, grantFailure, JobsSweepError, unscoped } from './sweep-scope.ts';

/** Run idempotency markers of jobs are kept as long as those of API starts. */
const RUN_MARKER_TTL_SECONDS = 7 * 24 * 3600;
/** Queued jobs looked at per promotion round (those waiting for a retry time are skipped). */
const QUEUE_WINDOW = 25;

/** The snapshot a job's run is bound to, as the store resolves it (`grant_…` / job number). */
export const jobVersion = (job: JobRecord): WorkflowVersion => ({
  schemaVersion: 1,
  owner: job.owner,
  workflowId: job.grantId,
  version: job.number,
  definition: attemptDefinition(job),
  status: 'published',
  createdAt: job.createdAt,
});

/** Creates (once per attempt) and starts the run of a job holding a slot, and records it on the job. */
export async function startJobRun(deps: JobsDeps, job: JobRecord): Promise<void> {
  if (job.state !== 'starting') return;
  const attempt = job.runsStarted + 1;
  const created = prepareRun({
    version: jobVersion(job),
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
  // Turn 0's reservation from the job's snapshot: the live grant can only narrow its tools.
  const prepared = reserveFirstTurn(
    created,
    attemptDefinition(job),
    deps.firstTurn ?? firstTurnPlanning(deps.models),
    deps.clock,
  );
  const { run } = await launchRun(deps, prepared, {
    scope: `job:${job.jobId}`,
    key: `run-${attempt}`,
    requestHash: sha256Hex(canonicalJson({ jobId: job.jobId, attempt })),
    expiresAtEpoch: Math.floor(deps.clock.nowMs() / 1000) + RUN_MARKER_TTL_SECONDS,
  });
  const now = isoNow(deps.clock);
  await updateActiveJob(
    deps.store.ctx,
    {
      ...job,
      state: 'running',
      runId: run.runId,
      runsStarted: attempt,
      startedAt: job.startedAt ?? now,
      updatedAt: now,
    },
    { state: 'starting' },
  );
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
 * missing) grant ends its queued jobs `denied` instead: they never start.
 */
export async function promoteQueued(deps: JobsDeps, ref: GrantRef): Promise<number> {
  const { owner, grantId, clientId } = ref;
  let promoted = 0;
  for (let round = 0; round < 1000; round++) {
    const numbers = await queuedNumbers(deps.store.ctx, grantId, QUEUE_WINDOW);
    if (numbers.length === 0) return promoted;
    const grant = await getGrantRecord(deps.store.ctx, owner, clientId);
    const nowMs = deps.clock.nowMs();
    let moved = false;
    for (const n of numbers) {
      const job = await getJobRecord(deps.store.ctx, grantId, n);
      if (job?.state !== 'queued') continue;
      if (!grant || grant.revoked || grant.grantId !== grantId) {
        await endQueued(deps, job, {
          status: 'denied',
          stopReason: 'policy_denied',
          error: { name: 'GrantRevoked', message: 'the delegation grant was revoked before the job started' },
        });
        moved = true;
        continue;
      }
      if (job.notBefore && Date.parse(job.notBefore) > nowMs) continue;
      // A retry queued before the job's tally existed counts its attempts as all they were given: when nothing
      // is left, it ends here instead of starting a run with no budget.
      if (job.previousRunIds.length > 0 && exhausted(remainingSpend(job))) {
        const spent = settledSpend(job);
        await endQueued(deps, job, {
          status: 'failed',
          stopReason: 'budget_exceeded',
          error: {
            name: 'JobBudgetSpent',
            message: `not retried: the job's budget is spent ($${spent.usd} of $${job.constraints.budget.maxUsdPerJob}, ${spent.turns} of ${job.constraints.maxTurns} turns)`,
          },
        });
        moved = true;
        continue;
      }
      const now = isoNow(deps.clock);
      const { notBefore: _notBefore, ...rest } = job;
      const next: JobRecord = { ...rest, state: 'starting', updatedAt: now };
      const claim = await claimSlot(deps.store.ctx, job, grant.grant.concurrency, next);
      if (claim === 'full') return promoted;
      if (claim === 'claimed') {
        promoted++;
        await startJobRun(deps, next);
      }
      moved = true;
      break;
    }
    if (!moved) return promoted;
  }
  return promoted;
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
    const disposition = dispositionOf(
      run,
      { ...job, ...tally },
      dispatched,
      deps.retry ?? DEFAULT_RETRY_POLICY,
    );
    const now = isoNow(deps.clock);
    const { runId: _runId, retry: _retry, ...rest } = job;
    const carried = {
      ...rest,
      ...tally,
      previousRunIds: [...job.previousRunIds, run.runId],
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
 */
export async function sweepJobs(
  deps: JobsDeps,
  scope: GrantScope = unscoped,
): Promise<{ grants: number; promoted: number }> {
  const grants = await listAllGrants(deps.store.ctx);
  let promoted = 0;
  const failures: GrantFailure[] = [];
  for (const ref of grants) {
    try {
      promoted += await scope(ref, () => sweepGrant(deps, ref));
    } catch (error) {
      failures.push(grantFailure(ref.grantId, error));
    }
  }
  if (failures.length > 0) throw new JobsSweepError(failures, { grants: grants.length, promoted });
  return { grants: grants.length, promoted };
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
