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
import { setTimeout as sleep } from 'node:timers/promises';
import { utf8Length } from '../core/byte-caps.ts';
import { cancelRun } from '../runs/cancel-run.ts';
import { jobIdOf, parseJobId } from '../schemas/job.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import { isoNow, type JobCaller, type JobsDeps } from './deps.ts';
import type { LiveGrant } from './effective.ts';
import { JobNotFoundError, JobRejectedError } from './errors.ts';
import { getGrantRecord } from './grant-store.ts';
import { type GrantActor, getGrant } from './grants.ts';
import { endQueued, promoteQueued, settleJobRun, startJobRun } from './lifecycle.ts';
import {
  admitJob,
  getIdempotencyPointer,
  getJobRecord,
  getRequestPointer,
  listJobRecords,
  markCancelRequested,
  nextJobNumber,
  queuePosition,
  rememberIdempotencyKey,
} from './queue-store.ts';
import { JOB_RECORD_MAX_BYTES, jobItemBytes } from './record-size.ts';
import type { GrantRecord, JobRecord } from './records.ts';
import { type ResolvedJob, resolveJob } from './resolve.ts';
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

/**
 * Looks at a job a cancel takes before answering job_busy (each after a conditional write lost to a move of
 * the job), the third on waiting 25, 50, 100 ms.
 */
const CANCEL_LOOKS = 5;
const CANCEL_LOOK_DELAY_MS = 25;

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

/** The view of `job` (view.ts), its constraints under `live`, the grant as the caller's request read it. */
async function viewOf(deps: JobsDeps, job: JobRecord, live: LiveGrant): Promise<JobView> {
  const run = job.runId ? await deps.store.getRun(job.runId) : undefined;
  if (job.state === 'running' && run && isTerminalRunStatus(run.status)) {
    // The run ended and its job is not settled yet (Deliver or MarkFailed is on its way, or crashed):
    // settle it now, so what the client reads (and may submit next) agrees with its slot.
    await settleJobRun(deps, run);
    const settled = await getJobRecord(deps.store.ctx, job.grantId, job.number);
    // Settled (ended, queued again, or already running its next attempt): read that instead.
    if (settled && (settled.state !== 'running' || settled.runId !== job.runId))
      return viewOf(deps, settled, live);
  }
  const position =
    job.state === 'queued'
      ? await queuePosition(deps.store.ctx, job.grantId, job.number, isoNow(deps.clock))
      : undefined;
  return jobView(job, run, position, live);
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
 * that job with `coalesced: true`; a repeated Idempotency-Key answers its job for a week, even when the key
 * was first answered by coalescing. The answer is the job's id and state, never its result.
 */
export async function submitJob(
  deps: JobsDeps,
  caller: JobCaller,
  input: SubmitJobInput,
  options: { idempotencyKey?: string | undefined } = {},
): Promise<SubmitJobResult> {
  return (await submitJobOutcome(deps, caller, input, options)).result;
}

/** What a submission answers, and whether it admitted a new job (REST: 202) or answered an existing one (200). */
export type SubmitOutcome = { result: SubmitJobResult; admitted: boolean };

/** submitJob, saying whether the answer is a job this submission admitted. */
export async function submitJobOutcome(
  deps: JobsDeps,
  caller: JobCaller,
  input: SubmitJobInput,
  options: { idempotencyKey?: string | undefined } = {},
): Promise<SubmitOutcome> {
  const grant = await authorizeCaller(deps, caller, 'jobs:submit');
  const request = SubmitJobSchema.parse(input);
  const resolved = resolveJob(grant, request, deps.models);
  const key = options.idempotencyKey;
  // Sized before anything is written, and for a dry run too: it says whether the job would be accepted. (A
  // repeated key or an identical live job is answered first: it is already stored.)
  const fits = () =>
    assertJobFits(newJobRecord(grant, request.prompt, resolved, MAX_JOB_NUMBER, isoNow(deps.clock), key));
  if (request.dryRun) {
    fits();
    return { result: { dryRun: true, constraints: resolved.constraints }, admitted: false };
  }
  const ctx = deps.store.ctx;
  const nowEpoch = Math.floor(deps.clock.nowMs() / 1000);
  const keyWindow = { expiresAtEpoch: nowEpoch + IDEMPOTENCY_TTL_SECONDS, nowEpoch };
  const existing = async (pointer: { number: number; requestHash: string } | undefined) => {
    const job = pointer ? await getJobRecord(ctx, grant.grantId, pointer.number) : undefined;
    return job ? await viewOf(deps, job, grant) : undefined;
  };
  const answer = (job: JobView, coalesced: boolean): SubmitOutcome => ({
    result: { job, coalesced },
    admitted: false,
  });
  /** The job Idempotency-Key `key` holds, if it holds one (another request with it is a conflict). */
  const keyed = async (): Promise<JobView | undefined> => {
    if (!key) return undefined;
    const pointer = await getIdempotencyPointer(ctx, grant.grantId, key, nowEpoch);
    if (pointer && pointer.requestHash !== resolved.requestHash)
      throw new JobRejectedError(
        'idempotency_conflict',
        'Idempotency-Key',
        'was already used with a different request',
      );
    return existing(pointer);
  };
  /**
   * Answers the live job `pointer` coalesced with. A key that came with this request is remembered for that
   * job (conditional, for the key's week), so repeating the request with it answers that job even after it
   * ended, instead of running it again; a key taken meanwhile by a concurrent request answers its job.
   */
  const coalesceWith = async (
    pointer: { jobId: string; number: number; requestHash: string },
    job: JobView,
  ): Promise<SubmitOutcome> => {
    if (key && !(await rememberIdempotencyKey(ctx, grant.grantId, key, pointer, keyWindow))) {
      const other = await keyed();
      if (other) return answer(other, isLive(other));
    }
    return answer(job, true);
  };

  const repeated = await keyed();
  if (repeated) return answer(repeated, isLive(repeated));
  const livePointer = await getRequestPointer(ctx, grant.grantId, resolved.requestHash);
  const live = await existing(livePointer);
  if (livePointer && live) return coalesceWith(livePointer, live);

  fits();
  const number = await nextJobNumber(ctx, grant.grantId);
  const job = newJobRecord(grant, request.prompt, resolved, number, isoNow(deps.clock), key);
  const cap = grant.grant.concurrency + grant.grant.maxQueued;
  const outcome = await admitJob(ctx, job, cap, keyWindow.expiresAtEpoch, nowEpoch);
  if (outcome === 'full')
    throw new JobRejectedError(
      'queue_full',
      'queue',
      `the client's ${grant.grant.concurrency} running and ${grant.grant.maxQueued} queued jobs are all taken`,
    );
  if (outcome === 'idempotent') {
    // A concurrent request with the same key got there first: answer its job, as a repeated key does.
    const other = await keyed();
    if (!other) throw new Error('the job this Idempotency-Key answers is gone; retry');
    return answer(other, isLive(other));
  }
  if (outcome === 'coalesce') {
    // An identical submission got there first: answer its job, as a repeated submission does.
    const pointer = await getRequestPointer(ctx, grant.grantId, resolved.requestHash);
    const other = await existing(pointer);
    if (!pointer || !other) throw new Error('the job this submission coalesced with is gone; retry');
    return coalesceWith(pointer, other);
  }
  await promoteQueued(deps, grant);
  const stored = await getJobRecord(ctx, grant.grantId, number);
  // The answer to a new submission is its id and state, never its result (docs/jobs.md): a job fast enough to
  // finish before this read would otherwise answer differently from a slow one.
  const { result: _result, ...admitted } = await viewOf(deps, stored ?? job, grant);
  return { result: { job: admitted, coalesced: false }, admitted: true };
}

const isLive = (job: JobView) =>
  job.status === 'queued' || job.status === 'running' || job.status === 'awaiting_approval';

/** The largest job number a record is sized with (its id and key at their longest). */
const MAX_JOB_NUMBER = 9_999_999_999;

/** A new job's record, queued. */
function newJobRecord(
  grant: GrantRecord,
  prompt: string,
  resolved: ResolvedJob,
  number: number,
  now: string,
  idempotencyKey: string | undefined,
): JobRecord {
  return {
    schemaVersion: 1,
    jobId: jobIdOf(grant.grantId, number),
    number,
    owner: grant.owner,
    clientId: grant.clientId,
    grantId: grant.grantId,
    state: 'queued',
    prompt,
    requestHash: resolved.requestHash,
    ...(idempotencyKey ? { idempotencyKey } : {}),
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
}

/**
 * Refuses, naming `prompt`, a job whose record would not leave room under DynamoDB's item limit for what its
 * later states add (record-size.ts): the prompt and the grant's definition (its system prompt, connectors…)
 * are stored together.
 */
function assertJobFits(job: JobRecord): void {
  const bytes = jobItemBytes(job);
  if (bytes <= JOB_RECORD_MAX_BYTES) return;
  const over = bytes - JOB_RECORD_MAX_BYTES;
  const promptBytes = utf8Length(job.prompt);
  throw new JobRejectedError(
    'validation_failed',
    'prompt',
    promptBytes > over
      ? `is too large for this grant: the job would be stored in ${bytes} bytes with the grant's definition (its system prompt, connectors and gates), and a job may start with at most ${JOB_RECORD_MAX_BYTES}; shorten the prompt by at least ${over} bytes (UTF-8)`
      : `cannot fit: the grant's definition (its system prompt, connectors and gates) leaves no room for a prompt under the ${JOB_RECORD_MAX_BYTES} bytes a job may start with; its owner must shorten it`,
  );
}

/** Polls one of the caller's jobs (scope `jobs:read`). */
export async function getJob(deps: JobsDeps, caller: JobCaller, jobId: string): Promise<JobView> {
  const grant = await authorizeCaller(deps, caller, 'jobs:read');
  return viewOf(deps, await ownJob(deps, grant, jobId), grant);
}

/**
 * Cancels one of the caller's jobs (scope `jobs:cancel`) and says what was stopped: a job that never started
 * (queued, or `starting` before its run was created: `queued`), a job's run (cancelled like any run, its
 * execution stopped: `run`), or nothing (it had ended). A job being started gets its cancel marked (a write
 * conditional on it still starting), and the start path honours it (lifecycle.ts startJobRun), here at once:
 * it ends `cancelled`, and a run created meanwhile is cancelled. Repeated, a cancel answers `nothing`.
 */
export async function cancelJob(deps: JobsDeps, caller: JobCaller, jobId: string): Promise<CancelJobResult> {
  const grant = await authorizeCaller(deps, caller, 'jobs:cancel');
  for (let attempt = 1; attempt <= CANCEL_LOOKS; attempt++) {
    if (attempt > 2) await sleep(CANCEL_LOOK_DELAY_MS * 2 ** (attempt - 3));
    const job = await ownJob(deps, grant, jobId);
    if (job.state === 'ended') return { job: await viewOf(deps, job, grant), stopped: 'nothing' };
    if (job.state === 'queued') {
      const ended = await endQueued(deps, job, {
        status: 'cancelled',
        stopReason: 'cancelled',
        error: { name: 'Cancelled', message: 'the job was cancelled by its client before it started' },
      });
      if (!ended) continue;
      const after = await getJobRecord(deps.store.ctx, job.grantId, job.number);
      return { job: await viewOf(deps, after ?? job, grant), stopped: 'queued' };
    }
    if (job.state === 'starting') {
      // Marked first (conditional on it still starting), then the start is finished here with the mark: the
      // job ends cancelled without a run, or with its run (created meanwhile) cancelled.
      if (!job.cancelRequested && !(await markCancelRequested(deps.store.ctx, job, isoNow(deps.clock))))
        continue;
      await startJobRun(deps, { ...job, cancelRequested: true });
      const after = await getJobRecord(deps.store.ctx, job.grantId, job.number);
      if (after?.state !== 'ended') continue; // its run is recorded: cancelled as a running job's, next look
      // Its run, created meanwhile, was cancelled here (or had already ended: its verdict stands).
      const stopped = !after.runId ? 'queued' : after.final?.status === 'cancelled' ? 'run' : 'nothing';
      return { job: await viewOf(deps, after, grant), stopped };
    }
    if (!job.runId) continue;
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
    return { job: await viewOf(deps, after ?? job, grant), stopped };
  }
  // The job moved under every look (each look's write is conditional on what it read): nothing more was done
  // here, though a cancel marked on it stands. A conflict to retry, never a refusal read as "revoked".
  throw new JobRejectedError(
    'job_busy',
    'jobId',
    'the job changed state under each look; retry in a moment (a cancel already recorded on it stands)',
  );
}

/** The caller's jobs, newest first (scope `jobs:read`); `status` filters the page. */
export async function listJobs(
  deps: JobsDeps,
  caller: JobCaller,
  input: ListJobsInput = {},
): Promise<ListJobsResult> {
  const grant = await authorizeCaller(deps, caller, 'jobs:read');
  return jobPage(deps, grant, input);
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
  return jobPage(deps, grant, input);
}

/** One page of a grant's jobs as views; `status` filters the page. */
async function jobPage(deps: JobsDeps, grant: LiveGrant, input: ListJobsInput): Promise<ListJobsResult> {
  const { grantId } = grant;
  const query = ListJobsSchema.parse(input);
  const page = await listJobRecords(deps.store.ctx, grantId, query.limit ?? 20, query.nextToken);
  const views = await Promise.all(page.jobs.map((job) => viewOf(deps, job, grant)));
  const shown = page.jobs
    .map((job, index) => ({ job, view: views[index] as JobView }))
    .filter(({ view }) => !query.status || view.status === query.status);
  return fittingJobs(grantId, shown, page.nextToken);
}
