/**
 * The job operations, transport-neutral: the REST routes (shared/api/routes/jobs.ts) and the MCP tools call
 * these with the authenticated caller. Every operation loads the caller's live grant (one read) and checks
 * its scope; a job id that is not the caller's answers JobNotFoundError, whether it exists or not.
 *
 * @example
 * const caller = { clientId: 'ci-bot', owner: 'alice', principal: 'client:ci-bot' };
 * const { job } = await submitJob(deps, caller, { prompt: 'Summarize the open issues' });
 * const polled = await getJob(deps, caller, job.jobId);
 */
import { cancelRun } from '../runs/cancel-run.ts';
import { jobIdOf, parseJobId } from '../schemas/job.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import { isoNow, type JobCaller, type JobsDeps } from './deps.ts';
import { JobNotFoundError, JobRejectedError } from './errors.ts';
import { getGrantRecord } from './grant-store.ts';
import { type GrantActor, getGrant } from './grants.ts';
import { endQueued, promoteQueued, settleJobRun } from './lifecycle.ts';
import {
  admitJob,
  getIdempotencyPointer,
  getJobRecord,
  getRequestPointer,
  listJobRecords,
  markCancelRequested,
  nextJobNumber,
  queuePosition,
} from './queue-store.ts';
import type { GrantRecord, JobRecord } from './records.ts';
import { resolveJob } from './resolve.ts';
import {
  type CancelJobResult,
  type JobScope,
  type JobView,
  type ListJobsInput,
  type ListJobsResult,
  ListJobsSchema,
  type SubmitJobInput,
  type SubmitJobResult,
  SubmitJobSchema,
} from './schemas.ts';
import { jobView } from './view.ts';
import { fittingJobs } from './view-page.ts';

export type { JobCaller, JobsDeps };

/** Idempotency-Keys of submissions are remembered for a week. */
const IDEMPOTENCY_TTL_SECONDS = 7 * 24 * 3600;

/** The caller's live grant, if it allows `scope`; otherwise a refusal naming why. */
export async function authorizeCaller(
  deps: JobsDeps,
  caller: JobCaller,
  scope: JobScope,
): Promise<GrantRecord> {
  // Only the grant of the owner the credential proves: a credential proving no owner gets none, and another
  // owner's grant of the same client id is never read (the same answer whether it exists or not).
  const grant =
    caller.owner === '' ? undefined : await getGrantRecord(deps.store.ctx, caller.owner, caller.clientId);
  if (!grant) throw new JobRejectedError('not_granted', 'client', 'this client has no delegation grant');
  if (grant.revoked) throw new JobRejectedError('not_granted', 'client', "this client's grant was revoked");
  if (!grant.grant.scopes.includes(scope))
    throw new JobRejectedError('scope_missing', 'scope', `the grant does not include the scope '${scope}'`);
  return grant;
}

async function viewOf(deps: JobsDeps, job: JobRecord): Promise<JobView> {
  const run = job.runId ? await deps.store.getRun(job.runId) : undefined;
  if (job.state === 'running' && run && isTerminalRunStatus(run.status)) {
    // The run ended and its job is not settled yet (Deliver or MarkFailed is on its way, or crashed):
    // settle it now, so what the client reads (and may submit next) agrees with its slot.
    await settleJobRun(deps, run);
    const settled = await getJobRecord(deps.store.ctx, job.grantId, job.number);
    // Settled (ended, queued again, or already running its next attempt): read that instead.
    if (settled && (settled.state !== 'running' || settled.runId !== job.runId)) return viewOf(deps, settled);
  }
  const position =
    job.state === 'queued'
      ? await queuePosition(deps.store.ctx, job.grantId, job.number, isoNow(deps.clock))
      : undefined;
  return jobView(job, run, position);
}

/** The caller's job `jobId`, or JobNotFoundError (malformed, foreign and missing alike). */
async function ownJob(deps: JobsDeps, grant: GrantRecord, jobId: string): Promise<JobRecord> {
  const ref = parseJobId(jobId);
  if (!ref || ref.grantId !== grant.grantId) throw new JobNotFoundError();
  const job = await getJobRecord(deps.store.ctx, ref.grantId, ref.number);
  if (!job || job.jobId !== jobId || job.clientId !== grant.clientId) throw new JobNotFoundError();
  return job;
}

/**
 * Submits a job (scope `jobs:submit`): validated against the live grant; a dry run answers the resolved
 * constraints and queues nothing. An identical submission while an earlier one is queued or running answers
 * that job with `coalesced: true`; a repeated Idempotency-Key answers its job. The answer is the job's id and
 * state, never its result.
 */
export async function submitJob(
  deps: JobsDeps,
  caller: JobCaller,
  input: SubmitJobInput,
  options: { idempotencyKey?: string | undefined } = {},
): Promise<SubmitJobResult> {
  const grant = await authorizeCaller(deps, caller, 'jobs:submit');
  const request = SubmitJobSchema.parse(input);
  const resolved = resolveJob(grant, request, deps.models);
  if (request.dryRun) return { dryRun: true, constraints: resolved.constraints };
  const ctx = deps.store.ctx;
  const existing = async (pointer: { number: number; requestHash: string } | undefined) => {
    const job = pointer ? await getJobRecord(ctx, grant.grantId, pointer.number) : undefined;
    return job ? await viewOf(deps, job) : undefined;
  };
  if (options.idempotencyKey) {
    const pointer = await getIdempotencyPointer(ctx, grant.grantId, options.idempotencyKey);
    if (pointer && pointer.requestHash !== resolved.requestHash)
      throw new JobRejectedError(
        'idempotency_conflict',
        'Idempotency-Key',
        'was already used with a different request',
      );
    const job = await existing(pointer);
    if (job)
      return {
        job,
        coalesced: job.status === 'queued' || job.status === 'running' || job.status === 'awaiting_approval',
      };
  }
  const live = await existing(await getRequestPointer(ctx, grant.grantId, resolved.requestHash));
  if (live) return { job: live, coalesced: true };

  const number = await nextJobNumber(ctx, grant.grantId);
  const now = isoNow(deps.clock);
  const job: JobRecord = {
    schemaVersion: 1,
    jobId: jobIdOf(grant.grantId, number),
    number,
    owner: grant.owner,
    clientId: grant.clientId,
    grantId: grant.grantId,
    state: 'queued',
    prompt: request.prompt,
    requestHash: resolved.requestHash,
    ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
    constraints: resolved.constraints,
    definition: resolved.definition,
    previousRunIds: [],
    attemptsMade: 0,
    runsStarted: 0,
    capacityWaits: 0,
    cancelRequested: false,
    createdAt: now,
    updatedAt: now,
  };
  const cap = grant.grant.concurrency + grant.grant.maxQueued;
  const outcome = await admitJob(
    ctx,
    job,
    cap,
    Math.floor(deps.clock.nowMs() / 1000) + IDEMPOTENCY_TTL_SECONDS,
  );
  if (outcome === 'full')
    throw new JobRejectedError(
      'queue_full',
      'queue',
      `the client's ${grant.grant.concurrency} running and ${grant.grant.maxQueued} queued jobs are all taken`,
    );
  if (outcome === 'coalesce' || outcome === 'idempotent') {
    // Another submission got there first: answer its job, as a repeated submission does.
    const pointer =
      outcome === 'coalesce'
        ? await getRequestPointer(ctx, grant.grantId, resolved.requestHash)
        : await getIdempotencyPointer(ctx, grant.grantId, options.idempotencyKey ?? '');
    const other = await existing(pointer);
    if (!other) throw new Error('the job this submission coalesced with is gone; retry');
    return { job: other, coalesced: outcome === 'coalesce' };
  }
  await promoteQueued(deps, grant);
  const stored = await getJobRecord(ctx, grant.grantId, number);
  // The answer to a new submission is its id and state, never its result (docs/jobs.md): a job fast enough to
  // finish before this read would otherwise answer differently from a slow one.
  const { result: _result, ...admitted } = await viewOf(deps, stored ?? job);
  return { job: admitted, coalesced: false };
}

/** Polls one of the caller's jobs (scope `jobs:read`). */
export async function getJob(deps: JobsDeps, caller: JobCaller, jobId: string): Promise<JobView> {
  const grant = await authorizeCaller(deps, caller, 'jobs:read');
  return viewOf(deps, await ownJob(deps, grant, jobId));
}

/**
 * Cancels one of the caller's jobs (scope `jobs:cancel`) and says what was stopped: a queued job (it never
 * starts), a running job's run (cancelled like any run, its execution stopped), or nothing (it had ended).
 */
export async function cancelJob(deps: JobsDeps, caller: JobCaller, jobId: string): Promise<CancelJobResult> {
  const grant = await authorizeCaller(deps, caller, 'jobs:cancel');
  for (let attempt = 1; attempt <= 5; attempt++) {
    const job = await ownJob(deps, grant, jobId);
    if (job.state === 'ended') return { job: await viewOf(deps, job), stopped: 'nothing' };
    if (job.state === 'queued') {
      const ended = await endQueued(deps, job, {
        status: 'cancelled',
        stopReason: 'cancelled',
        error: { name: 'Cancelled', message: 'the job was cancelled by its client before it started' },
      });
      if (!ended) continue;
      const after = await getJobRecord(deps.store.ctx, job.grantId, job.number);
      return { job: await viewOf(deps, after ?? job), stopped: 'queued' };
    }
    if (!job.runId) continue; // starting: its run is being created; look again
    // Marked on the job first, conditional on it still running this run: if the run has already failed and a
    // settle is about to queue a retry, that settle (or the one below) ends the job cancelled instead.
    if (!job.cancelRequested && !(await markCancelRequested(deps.store.ctx, job, isoNow(deps.clock))))
      continue;
    const run: Run | undefined = await cancelRun(deps, {
      owner: job.owner,
      runId: job.runId,
      actor: `client:${job.clientId}`,
    });
    const stopped = run?.status === 'cancelled' ? 'run' : 'nothing';
    if (run) await settleJobRun(deps, run);
    const after = await getJobRecord(deps.store.ctx, job.grantId, job.number);
    return { job: await viewOf(deps, after ?? job), stopped };
  }
  throw new JobRejectedError('not_granted', 'jobId', 'the job is changing state; retry');
}

/** The caller's jobs, newest first (scope `jobs:read`); `status` filters the page. */
export async function listJobs(
  deps: JobsDeps,
  caller: JobCaller,
  input: ListJobsInput = {},
): Promise<ListJobsResult> {
  const grant = await authorizeCaller(deps, caller, 'jobs:read');
  return jobPage(deps, grant.grantId, input);
}

/**
 * The jobs of one of the owner's grants, newest first (the owner's console): the same views its client polls.
 * A foreign or missing client id is the same `not_found`.
 */
export async function listGrantJobs(
  deps: JobsDeps,
  actor: GrantActor,
  clientId: string,
  input: ListJobsInput = {},
): Promise<ListJobsResult> {
  const grant = await getGrant(deps, actor, clientId);
  return jobPage(deps, grant.grantId, input);
}

/** One page of a grant's jobs as views; `status` filters the page. */
async function jobPage(deps: JobsDeps, grantId: string, input: ListJobsInput): Promise<ListJobsResult> {
  const query = ListJobsSchema.parse(input);
  const page = await listJobRecords(deps.store.ctx, grantId, query.limit ?? 20, query.nextToken);
  const views = await Promise.all(page.jobs.map((job) => viewOf(deps, job)));
  const shown = page.jobs
    .map((job, index) => ({ job, view: views[index] as JobView }))
    .filter(({ view }) => !query.status || view.status === query.status);
  return fittingJobs(grantId, shown, page.nextToken);
}
