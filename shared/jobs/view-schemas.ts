/**
 * What the jobs API answers (docs/jobs.md): a grant and a job as their owner and client read them, and the
 * answers to a submission, a cancel and a listing. Only the OpenAPI document uses these schemas: it is built on
 * the first request for it and calls jobViewSchemas() (openapi-jobs.ts), so no function builds them at import
 * (test/infra/lazy-schemas.test.ts). The routes and the MCP tools answer with the plain objects these describe
 * (the types are re-exported by schemas.ts).
 */

import { IsoTimeSchema, UsageSchema } from '../schemas/common.ts';
import { JobIdSchema } from '../schemas/job.ts';
import { StopReasonSchema } from '../schemas/run.ts';
import * as z from '../zod.ts';
import { GrantRecordSchema } from './records.ts';
import { JobConstraintsSchema, JobRetrySchema, JobStatusSchema } from './schemas.ts';

/** The view schemas, built on the first call (the OpenAPI document's first request), then the same objects. */
export function jobViewSchemas() {
  built ??= build();
  return built;
}

let built: ReturnType<typeof build> | undefined;

function build() {
  /** A stored grant as the owner reads it: the record without its owner (the caller is the owner). */
  const GrantViewSchema = z.omit(GrantRecordSchema, { owner: true });

  /** What a poll answers: status, timestamps, queue position, result, stop reason, usage and cost, capped error. */
  const JobViewSchema = z.object({
    jobId: JobIdSchema,
    status: JobStatusSchema,
    /** 1 for the next job to start; only while queued. */
    queuePosition: z.optional(z.number().check(z.int(), z.positive())),
    createdAt: IsoTimeSchema,
    startedAt: z.optional(IsoTimeSchema),
    endedAt: z.optional(IsoTimeSchema),
    runId: z.optional(z.string()),
    result: z.optional(z.object({ text: z.string() })),
    stopReason: z.optional(StopReasonSchema),
    /** Model calls over all the job's attempts (at most `constraints.maxTurns`). */
    turns: z.number().check(z.int(), z.nonnegative()),
    /** The token usage of the current (or last) attempt's run. */
    usage: UsageSchema,
    /** The job's cost over all its attempts, USD (at most `constraints.budget.maxUsdPerJob`). */
    costUsd: z.number().check(z.nonnegative()),
    /** Capped at 1,000 characters. */
    error: z.optional(z.object({ name: z.string(), message: z.string().check(z.maxLength(1000)) })),
    /**
     * Attempts used (of `max`: `constraints.maxAttempts`, the lower of the snapshot's and the live grant's, which
     * retries are counted against); capacity waits (rate limit, overload) use none and are counted apart.
     */
    attempts: z.object({
      made: z.number().check(z.int(), z.nonnegative()),
      max: z.number().check(z.int(), z.positive()),
      capacityWaits: z.number().check(z.int(), z.nonnegative()),
    }),
    retry: z.optional(JobRetrySchema),
    /**
     * What the job runs under now: its admitted constraints under the live grant, each the stricter of the two
     * (a tool the grant withdrew is `deny`; `grantVersion` the live grant's version), as its run applies them.
     */
    constraints: JobConstraintsSchema,
    /** The constraints the job was admitted with; only once its grant changed since (then `constraints` differ). */
    admittedConstraints: z.optional(JobConstraintsSchema),
  });

  /** The answer to a submission: the job and its state (never its result), or a dry run's constraints. */
  const SubmitJobResultSchema = z.union([
    z.object({ job: JobViewSchema, coalesced: z.boolean() }),
    z.object({ dryRun: z.literal(true), constraints: JobConstraintsSchema }),
  ]);

  /** What a cancel stopped: a queued job (never started), a running job's run, or nothing (already ended). */
  const CancelJobResultSchema = z.object({
    job: JobViewSchema,
    stopped: z.enum(['queued', 'run', 'nothing']),
  });

  const ListJobsResultSchema = z.object({
    jobs: z.array(JobViewSchema),
    nextToken: z.optional(z.string()),
  });
  return {
    GrantViewSchema,
    JobViewSchema,
    SubmitJobResultSchema,
    CancelJobResultSchema,
    ListJobsResultSchema,
  };
}
export type GrantView = z.infer<Schemas['GrantViewSchema']>;
export type JobView = z.infer<Schemas['JobViewSchema']>;
export type SubmitJobResult = z.infer<Schemas['SubmitJobResultSchema']>;
export type CancelJobResult = z.infer<Schemas['CancelJobResultSchema']>;
export type ListJobsResult = z.infer<Schemas['ListJobsResultSchema']>;
type Schemas = ReturnType<typeof jobViewSchemas>;
