/**
 * The shapes of delegated agent jobs, shared by the REST routes (shared/api/routes/jobs.ts, grants.ts) and
 * the MCP tools: one zod schema per concept, so both surfaces validate and describe the same input.
 *
 * The request schemas are built in `/* @__PURE__ *\/` closures: the store decodes job and grant
 * records (shared/jobs/records.ts) with GrantSpecSchema, JobConstraintsSchema and JobRetrySchema only, so
 * esbuild drops the rest from the functions that do not serve the jobs API instead of building them at every
 * cold start (zod's own annotations do not cross files; docs/deploy.md, "Function bundles").
 *
 * What the jobs API answers (the views: GrantViewSchema, JobViewSchema, …) is in view-schemas.ts: only the
 * OpenAPI document builds those, on its first request.
 */

import {
  MAX_VALUE_DEPTH,
  RUN_INPUT_MAX_BYTES,
  refineStorable,
  type StorableLimits,
} from '../core/storable.ts';
import { ActionNameSchema, IsoTimeSchema, WorkflowNameSchema } from '../schemas/common.ts';
import { ConnectorSchema } from '../schemas/connector.ts';
import { CredRefsSchema } from '../schemas/credentials.ts';
import { ApprovalDefaultsSchema, GATE_MODES, GateSchema } from '../schemas/gate.ts';
import { ClientIdSchema, GrantIdSchema, JobIdSchema } from '../schemas/job.ts';
import * as z from '../zod.ts';

export type {
  CancelJobResult,
  GrantView,
  JobView,
  ListJobsResult,
  SubmitJobResult,
} from './view-schemas.ts';
export { ClientIdSchema, GrantIdSchema, JobIdSchema };

/** What a client may do with jobs: submit, read (poll and list) and cancel its own. */
export const JOB_SCOPES = ['jobs:submit', 'jobs:read', 'jobs:cancel'] as const;
export const JobScopeSchema = z.enum(JOB_SCOPES);
export type JobScope = z.infer<typeof JobScopeSchema>;

/** A model a grant allows: an explicit id or a role (fast, balanced, deep). */
export const GrantModelSchema = z
  .string()
  .check(z.regex(/^[a-z0-9][a-z0-9.:_-]{1,127}$/, 'must be a model id such as claude-sonnet-4-5, or a role'));

export const MAX_PROMPT_CHARS = 100_000;
/**
 * A prompt is its job's run input (stored on the run and in its first transcript message), so it has the run
 * input's cap: 256 KiB as JSON in UTF-8 bytes, whatever its characters (100,000 CJK characters are ~300 KB).
 */
const PROMPT_LIMITS: StorableLimits = { maxDepth: 1, maxBytes: RUN_INPUT_MAX_BYTES, indented: true };
const storablePrompt = /* @__PURE__ */ refineStorable(PROMPT_LIMITS);

/**
 * A delegation grant: what one client may delegate on its owner's behalf. Actions come from the owner's
 * built-ins and the connectors defined here, each with its gate; every job is bounded by the limits.
 */
export const GrantSpecSchema = z.strictObject({
  name: WorkflowNameSchema.check(
    z.describe("The jobs' agent name (the model is told it; scripted fixtures match it)."),
  ),
  system: z
    .optional(z.string().check(z.minLength(1), z.maxLength(100_000)))
    .check(z.describe("The jobs' system prompt; a neutral default when absent.")),
  actions: z
    .array(ActionNameSchema)
    .check(z.maxLength(64), z.describe('Actions the client may give its jobs.')),
  gates: z
    ._default(z.record(z.string(), z.union([z.enum(GATE_MODES), GateSchema])), {})
    .check(z.describe('Per action: allow, needs_approval or deny (unlisted: allow).')),
  approvals: z.optional(ApprovalDefaultsSchema).check(z.describe('Default approvers and approval timeout.')),
  connectors: z._default(z.record(ActionNameSchema, ConnectorSchema), {}),
  credRefs: z._default(CredRefsSchema, {}),
  models: z
    .array(GrantModelSchema)
    .check(
      z.minLength(1),
      z.maxLength(20),
      z.describe('Allowed model ids or roles; the first is the default.'),
    ),
  maxTurns: z.number().check(z.int(), z.gte(1), z.lte(200), z.describe('Model calls per job, at most.')),
  maxUsdPerJob: z.number().check(z.positive(), z.lte(1000), z.describe('Cost ceiling of one job (USD).')),
  maxUsdPerDay: z
    .optional(z.number().check(z.positive(), z.lte(100_000)))
    .check(z.describe("Ceiling of all the client's jobs per UTC day.")),
  concurrency: z
    .number()
    .check(z.int(), z.gte(1), z.lte(50), z.describe('Jobs running at once; more wait queued.')),
  maxQueued: z
    ._default(z.number().check(z.int(), z.gte(0), z.lte(1000)), 100)
    .check(z.describe('Jobs waiting at once; more are refused.')),
  maxAttempts: z
    ._default(z.number().check(z.int(), z.gte(1), z.lte(10)), 3)
    .check(z.describe('Attempts of a job that fails transiently.')),
  jobTimeoutSeconds: z._default(z.number().check(z.int(), z.gte(60), z.lte(7 * 24 * 3600)), 3600),
  scopes: z.array(JobScopeSchema).check(z.minLength(1), z.describe('jobs:submit, jobs:read, jobs:cancel.')),
});
export type GrantSpec = z.output<typeof GrantSpecSchema>;
export type GrantSpecInput = z.input<typeof GrantSpecSchema>;

/**
 * A grant is stored whole in its record and each history version: like a workflow version, well under
 * DynamoDB's 400 KB item limit, and only with field names the document client can marshal (a connector
 * input property, gate or connector named `constructor` was a 500).
 */
const GRANT_LIMITS: StorableLimits = {
  maxDepth: MAX_VALUE_DEPTH,
  maxBytes: 350_000,
  maxStoredBytes: 350_000,
};
const storableGrant = /* @__PURE__ */ refineStorable(GRANT_LIMITS, ['grant']);

/** `POST /v1/grants`: grant a client. */
export const CreateGrantSchema = /* @__PURE__ */ (() =>
  z
    .strictObject({ clientId: ClientIdSchema, grant: GrantSpecSchema })
    .check(z.superRefine((body, ctx) => storableGrant(body.grant, ctx))))();
/** `POST /v1/grants/{clientId}/narrow|widen`: the whole new grant, fenced on the version it replaces. */
export const ChangeGrantSchema = /* @__PURE__ */ (() =>
  z
    .strictObject({
      grant: GrantSpecSchema,
      expectedVersion: z.optional(z.number().check(z.int(), z.positive())),
    })
    .check(z.superRefine((body, ctx) => storableGrant(body.grant, ctx))))();

/** `POST /v1/jobs` (and the MCP tool `submit_agent_job`): a task under the caller's grant. */
export const SubmitJobSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    prompt: z.string().check(
      z.maxLength(MAX_PROMPT_CHARS),
      z.refine((text) => text.trim().length > 0, 'must not be empty'),
      z.superRefine((text, ctx) => storablePrompt(text, ctx)),
      z.describe(
        'The task, as the agent should read it: at most 100,000 characters and 262,144 bytes as JSON (UTF-8).',
      ),
    ),
    tools: z
      .optional(
        z.array(ActionNameSchema).check(
          z.maxLength(64),
          z.refine((names) => new Set(names).size === names.length, 'must not list a tool twice'),
        ),
      )
      .check(z.describe("A subset of the grant's actions; default: all of them.")),
    model: z.optional(GrantModelSchema).check(z.describe("One of the grant's models; default: its first.")),
    maxTurns: z
      .optional(z.number().check(z.int(), z.gte(1), z.lte(200)))
      .check(z.describe("Model calls, at most the grant's.")),
    dryRun: z._default(z.boolean(), false).check(z.describe('Resolve the constraints and queue nothing.')),
  }))();
export type SubmitJobInput = z.input<typeof SubmitJobSchema>;
export type SubmitJobRequest = z.output<typeof SubmitJobSchema>;

/** `GET /v1/jobs/{id}`, `DELETE /v1/jobs/{id}` (and `get_agent_job`, `cancel_agent_job`). */
export const JobRefSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    jobId: z.string().check(z.minLength(1), z.maxLength(80), z.describe('The job id (job_…).')),
  }))();

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
export const ListJobsSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    status: z.optional(JobStatusSchema),
    limit: z.optional(z.coerce.number().check(z.int(), z.gte(1), z.lte(100))),
    nextToken: z.optional(z.string().check(z.maxLength(200))),
  }))();
export type ListJobsInput = z.input<typeof ListJobsSchema>;

/** The constraints a job runs under: what a dry run answers, and what a job keeps as its snapshot. */
export const JobConstraintsSchema = z.object({
  tools: z.array(z.object({ name: z.string(), gate: z.enum(GATE_MODES) })),
  model: z.string(),
  maxTurns: z.number().check(z.int(), z.positive()),
  budget: z.object({ maxUsdPerJob: z.number(), maxUsdPerDay: z.optional(z.number()) }),
  timeoutSeconds: z.number().check(z.int(), z.positive()),
  maxAttempts: z.number().check(z.int(), z.positive()),
  grantVersion: z.number().check(z.int(), z.positive()),
});
export type JobConstraints = z.infer<typeof JobConstraintsSchema>;

/** How a job is being retried, when it is: the runtime's disposition, never the model's. */
export const JobRetrySchema = z.object({
  /** `capacity`: rate limit or overload, waiting without using an attempt; `backoff`: a failed attempt. */
  disposition: z.enum(['capacity', 'backoff']),
  reason: z.string().check(z.maxLength(1000)),
  nextAttemptAt: IsoTimeSchema,
});
