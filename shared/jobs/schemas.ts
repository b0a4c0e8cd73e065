/**
 * The shapes of delegated agent jobs, shared by the REST routes (shared/api/routes/jobs.ts, grants.ts) and
 * the MCP tools: one zod schema per concept, so both surfaces validate and describe the same input.
 */
import * as z from 'zod';
import { MAX_VALUE_DEPTH, refineStorable, type StorableLimits } from '../api/storable.ts';
import { ActionNameSchema, IsoTimeSchema, UsageSchema, WorkflowNameSchema } from '../schemas/common.ts';
import { ConnectorSchema } from '../schemas/connector.ts';
import { CredRefsSchema } from '../schemas/credentials.ts';
import { ApprovalDefaultsSchema, GATE_MODES, GateSchema } from '../schemas/gate.ts';
import { ClientIdSchema, GrantIdSchema, JobIdSchema } from '../schemas/job.ts';
import { StopReasonSchema } from '../schemas/run.ts';

export { ClientIdSchema, GrantIdSchema, JobIdSchema };

/** What a client may do with jobs: submit, read (poll and list) and cancel its own. */
export const JOB_SCOPES = ['jobs:submit', 'jobs:read', 'jobs:cancel'] as const;
export const JobScopeSchema = z.enum(JOB_SCOPES);
export type JobScope = z.infer<typeof JobScopeSchema>;

/** A model a grant allows: an explicit id or a role (fast, balanced, deep). */
export const GrantModelSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9.:_-]{1,127}$/, 'must be a model id such as claude-sonnet-4-5, or a role');

export const MAX_PROMPT_CHARS = 100_000;

/**
 * A delegation grant: what one client may delegate on its owner's behalf. Actions come from the owner's
 * built-ins and the connectors defined here, each with its gate; every job is bounded by the limits.
 */
export const GrantSpecSchema = z
  .object({
    name: WorkflowNameSchema.describe(
      "The jobs' agent name (the model is told it; scripted fixtures match it).",
    ),
    system: z
      .string()
      .min(1)
      .max(100_000)
      .optional()
      .describe("The jobs' system prompt; a neutral default when absent."),
    actions: z.array(ActionNameSchema).max(64).describe('Actions the client may give its jobs.'),
    gates: z
      .record(z.string(), z.union([z.enum(GATE_MODES), GateSchema]))
      .default({})
      .describe('Per action: allow, needs_approval or deny (unlisted: allow).'),
    approvals: ApprovalDefaultsSchema.optional().describe('Default approvers and approval timeout.'),
    connectors: z.record(ActionNameSchema, ConnectorSchema).default({}),
    credRefs: CredRefsSchema.default({}),
    models: z
      .array(GrantModelSchema)
      .min(1)
      .max(20)
      .describe('Allowed model ids or roles; the first is the default.'),
    maxTurns: z.number().int().min(1).max(200).describe('Model calls per job, at most.'),
    maxUsdPerJob: z.number().positive().max(1000).describe('Cost ceiling of one job (USD).'),
    maxUsdPerDay: z
      .number()
      .positive()
      .max(100_000)
      .optional()
      .describe("Ceiling of all the client's jobs per UTC day."),
    concurrency: z.number().int().min(1).max(50).describe('Jobs running at once; more wait queued.'),
    maxQueued: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .default(100)
      .describe('Jobs waiting at once; more are refused.'),
    maxAttempts: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(3)
      .describe('Attempts of a job that fails transiently.'),
    jobTimeoutSeconds: z
      .number()
      .int()
      .min(60)
      .max(7 * 24 * 3600)
      .default(3600),
    scopes: z.array(JobScopeSchema).min(1).describe('jobs:submit, jobs:read, jobs:cancel.'),
  })
  .strict();
export type GrantSpec = z.output<typeof GrantSpecSchema>;
export type GrantSpecInput = z.input<typeof GrantSpecSchema>;

/**
 * A grant is stored whole in its record and each history version: like a workflow version, well under
 * DynamoDB's 400 KB item limit, and only with field names the document client can marshal (a connector
 * input property, gate or connector named `constructor` was a 500).
 */
const GRANT_LIMITS: StorableLimits = { maxDepth: MAX_VALUE_DEPTH, maxBytes: 350_000 };
const storableGrant = refineStorable(GRANT_LIMITS, ['grant']);

/** `POST /v1/grants`: grant a client. */
export const CreateGrantSchema = z
  .object({ clientId: ClientIdSchema, grant: GrantSpecSchema })
  .strict()
  .superRefine((body, ctx) => storableGrant(body.grant, ctx));
/** `POST /v1/grants/{clientId}/narrow|widen`: the whole new grant, fenced on the version it replaces. */
export const ChangeGrantSchema = z
  .object({ grant: GrantSpecSchema, expectedVersion: z.number().int().positive().optional() })
  .strict()
  .superRefine((body, ctx) => storableGrant(body.grant, ctx));

/** A stored grant as the owner reads it. */
export const GrantViewSchema = z.object({
  clientId: ClientIdSchema,
  grantId: GrantIdSchema,
  version: z.number().int().positive(),
  revoked: z.boolean(),
  grant: GrantSpecSchema,
  createdAt: IsoTimeSchema,
  updatedAt: IsoTimeSchema,
  updatedBy: z.string(),
});
export type GrantView = z.infer<typeof GrantViewSchema>;

/** `POST /v1/jobs` (and the MCP tool `submit_agent_job`): a task under the caller's grant. */
export const SubmitJobSchema = z
  .object({
    prompt: z
      .string()
      .max(MAX_PROMPT_CHARS)
      .refine((text) => text.trim().length > 0, 'must not be empty')
      .describe('The task, as the agent should read it.'),
    tools: z
      .array(ActionNameSchema)
      .max(64)
      .refine((names) => new Set(names).size === names.length, 'must not list a tool twice')
      .optional()
      .describe("A subset of the grant's actions; default: all of them."),
    model: GrantModelSchema.optional().describe("One of the grant's models; default: its first."),
    maxTurns: z.number().int().min(1).max(200).optional().describe("Model calls, at most the grant's."),
    dryRun: z.boolean().default(false).describe('Resolve the constraints and queue nothing.'),
  })
  .strict();
export type SubmitJobInput = z.input<typeof SubmitJobSchema>;
export type SubmitJobRequest = z.output<typeof SubmitJobSchema>;

/** `GET /v1/jobs/{id}`, `DELETE /v1/jobs/{id}` (and `get_agent_job`, `cancel_agent_job`). */
export const JobRefSchema = z
  .object({ jobId: z.string().min(1).max(80).describe('The job id (job_…).') })
  .strict();

export const JOB_STATUSES = [
  'queued',
  'running',
  'awaiting_approval',
  'done',
  'failed',
  'denied',
  'cancelled',
] as const;
export const JobStatusSchema = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof JobStatusSchema>;

/** `GET /v1/jobs` (and `list_agent_jobs`): the caller's jobs, newest first. */
export const ListJobsSchema = z
  .object({
    status: JobStatusSchema.optional(),
    limit: z.coerce.number().int().min(1).max(100).optional(),
    nextToken: z.string().max(200).optional(),
  })
  .strict();
export type ListJobsInput = z.input<typeof ListJobsSchema>;

/** The constraints a job runs under: what a dry run answers, and what a job keeps as its snapshot. */
export const JobConstraintsSchema = z.object({
  tools: z.array(z.object({ name: z.string(), gate: z.enum(GATE_MODES) })),
  model: z.string(),
  maxTurns: z.number().int().positive(),
  budget: z.object({ maxUsdPerJob: z.number(), maxUsdPerDay: z.number().optional() }),
  timeoutSeconds: z.number().int().positive(),
  maxAttempts: z.number().int().positive(),
  grantVersion: z.number().int().positive(),
});
export type JobConstraints = z.infer<typeof JobConstraintsSchema>;

/** How a job is being retried, when it is: the runtime's disposition, never the model's. */
export const JobRetrySchema = z.object({
  /** `capacity`: rate limit or overload, waiting without using an attempt; `backoff`: a failed attempt. */
  disposition: z.enum(['capacity', 'backoff']),
  reason: z.string().max(1000),
  nextAttemptAt: IsoTimeSchema,
});

/** What a poll answers: status, timestamps, queue position, result, stop reason, usage and cost, capped error. */
export const JobViewSchema = z.object({
  jobId: JobIdSchema,
  status: JobStatusSchema,
  /** 1 for the next job to start; only while queued. */
  queuePosition: z.number().int().positive().optional(),
  createdAt: IsoTimeSchema,
  startedAt: IsoTimeSchema.optional(),
  endedAt: IsoTimeSchema.optional(),
  runId: z.string().optional(),
  result: z.object({ text: z.string() }).optional(),
  stopReason: StopReasonSchema.optional(),
  /** Model calls over all the job's attempts (at most `constraints.maxTurns`). */
  turns: z.number().int().nonnegative(),
  /** The token usage of the current (or last) attempt's run. */
  usage: UsageSchema,
  /** The job's cost over all its attempts, USD (at most `constraints.budget.maxUsdPerJob`). */
  costUsd: z.number().nonnegative(),
  /** Capped at 1,000 characters. */
  error: z.object({ name: z.string(), message: z.string().max(1000) }).optional(),
  /** Attempts used (of `max`); capacity waits (rate limit, overload) use none and are counted apart. */
  attempts: z.object({
    made: z.number().int().nonnegative(),
    max: z.number().int().positive(),
    capacityWaits: z.number().int().nonnegative(),
  }),
  retry: JobRetrySchema.optional(),
  constraints: JobConstraintsSchema,
});
export type JobView = z.infer<typeof JobViewSchema>;

/** The answer to a submission: the job and its state (never its result), or a dry run's constraints. */
export const SubmitJobResultSchema = z.union([
  z.object({ job: JobViewSchema, coalesced: z.boolean() }),
  z.object({ dryRun: z.literal(true), constraints: JobConstraintsSchema }),
]);
export type SubmitJobResult = z.infer<typeof SubmitJobResultSchema>;

/** What a cancel stopped: a queued job (never started), a running job's run, or nothing (already ended). */
export const CancelJobResultSchema = z.object({
  job: JobViewSchema,
  stopped: z.enum(['queued', 'run', 'nothing']),
});
export type CancelJobResult = z.infer<typeof CancelJobResultSchema>;

export const ListJobsResultSchema = z.object({
  jobs: z.array(JobViewSchema),
  nextToken: z.string().optional(),
});
export type ListJobsResult = z.infer<typeof ListJobsResultSchema>;
