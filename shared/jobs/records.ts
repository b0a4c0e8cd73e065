/**
 * The stored items of delegated jobs (single table, docs/data-model.md "Delegated jobs"):
 * - `CLIENT#<owner>#<clientId> / GRANT`: an owner's live grant of a client (version, revoked flag): per owner, so
 *   a client id is no namespace owners share (nothing to squat or probe); `CLIENT#<clientId> / GRANT` is the
 *   head written before grants were per owner, still read for its own owner and moved on its next change;
 * - `GRANT#<grantId> / GRANTV#<v>`: every version of it, as it was;
 * - `GRANT#<grantId> / SLOTS`: the admission counter (`running`, `queued`, `nextNumber`);
 * - `GRANT#<grantId> / JOB#<n>`: job n (request, snapshot, state, attempts);
 * - `GRANT#<grantId> / Q#<n>` while queued, `ACTIVE#<n>` while holding a slot, `REQ#<hash>` while coalescible,
 *   `IDEM#<key>` for an Idempotency-Key (a week);
 * - `JOBSWEEP / CURSOR`: the last grant the scheduled sweep fully handled (sweep-cursor.ts).
 */

import { IsoTimeSchema, OwnerIdSchema } from '../schemas/common.ts';
import { ClientIdSchema, GrantIdSchema, JobIdSchema } from '../schemas/job.ts';
import { StopReasonSchema } from '../schemas/run.ts';
import { AgentDefinitionShapeSchema } from '../schemas/workflow.ts';
import * as z from '../zod.ts';
import { GrantSpecSchema, JobConstraintsSchema, JobRetrySchema } from './schemas.ts';

const pad = (value: number, width: number) => String(value).padStart(width, '0');

export const jobKeys = {
  grantHead: (owner: string, clientId: string) => ({ pk: `CLIENT#${owner}#${clientId}`, sk: 'GRANT' }),
  /** Before grants were per owner (no `#` in owner or client ids, so the two never meet). */
  legacyGrantHead: (clientId: string) => ({ pk: `CLIENT#${clientId}`, sk: 'GRANT' }),
  grantVersion: (grantId: string, version: number) => ({
    pk: `GRANT#${grantId}`,
    sk: `GRANTV#${pad(version, 6)}`,
  }),
  slots: (grantId: string) => ({ pk: `GRANT#${grantId}`, sk: 'SLOTS' }),
  job: (grantId: string, n: number) => ({ pk: `GRANT#${grantId}`, sk: `JOB#${pad(n, 10)}` }),
  queued: (grantId: string, n: number) => ({ pk: `GRANT#${grantId}`, sk: `Q#${pad(n, 10)}` }),
  active: (grantId: string, n: number) => ({ pk: `GRANT#${grantId}`, sk: `ACTIVE#${pad(n, 10)}` }),
  request: (grantId: string, hash: string) => ({ pk: `GRANT#${grantId}`, sk: `REQ#${hash}` }),
  idempotency: (grantId: string, key: string) => ({ pk: `GRANT#${grantId}`, sk: `IDEM#${key}` }),
  /** Where the scheduled sweep goes on from (sweep-cursor.ts): one item for the whole table. */
  sweepCursor: () => ({ pk: 'JOBSWEEP', sk: 'CURSOR' }),
} as const;

export const jobPrefixes = { job: 'JOB#', queued: 'Q#', active: 'ACTIVE#' } as const;

/** The sparse index entries of a grant head: by owner (gsi1, listing) and all grants (gsi2, the sweep). */
export const grantIndexKeys = (owner: string, clientId: string, grantId: string) => ({
  gsi1pk: `OWNER#${owner}`,
  gsi1sk: `GRANT#${clientId}`,
  gsi2pk: 'JOBGRANTS',
  gsi2sk: grantId,
});

/** The live grant of a client. */
export const GrantRecordSchema = z.object({
  owner: OwnerIdSchema,
  clientId: ClientIdSchema,
  grantId: GrantIdSchema,
  version: z.number().check(z.int(), z.positive()),
  revoked: z.boolean(),
  grant: GrantSpecSchema,
  createdAt: IsoTimeSchema,
  updatedAt: IsoTimeSchema,
  updatedBy: z.string(),
});
export type GrantRecord = z.infer<typeof GrantRecordSchema>;

/** The admission counter of a grant. */
export const SlotsSchema = z.object({
  running: z._default(z.number().check(z.int()), 0),
  queued: z._default(z.number().check(z.int()), 0),
  nextNumber: z._default(z.number().check(z.int()), 0),
});

/**
 * Where a job is: `queued` (waiting for a slot, or for its retry time), `starting` (holds a slot, its run is
 * being created), `running` (holds a slot, `runId` is its run), `ended` (final; `final` says how when it
 * ended without a run's verdict: cancelled while queued, refused by a revoked grant).
 */
export const JOB_STATES = ['queued', 'starting', 'running', 'ended'] as const;

export const JobRecordSchema = z.object({
  schemaVersion: z.literal(1),
  jobId: JobIdSchema,
  number: z.number().check(z.int(), z.positive()),
  owner: OwnerIdSchema,
  clientId: ClientIdSchema,
  grantId: GrantIdSchema,
  state: z.enum(JOB_STATES),
  prompt: z.string(),
  requestHash: z.string(),
  idempotencyKey: z.optional(z.string()),
  constraints: JobConstraintsSchema,
  /** The agent definition the job runs: the grant snapshot ∩ the request, resolved at admission. */
  definition: AgentDefinitionShapeSchema,
  runId: z.optional(z.string()),
  /** Runs of earlier attempts, oldest first. */
  previousRunIds: z._default(z.array(z.string()), []),
  /** Attempts that counted (a capacity wait does not). */
  attemptsMade: z.number().check(z.int(), z.nonnegative()),
  /** Runs started in all, capacity retries included: the next run's idempotency scope. */
  runsStarted: z._default(z.number().check(z.int(), z.nonnegative()), 0),
  capacityWaits: z._default(z.number().check(z.int(), z.nonnegative()), 0),
  /**
   * The cost (USD) and model calls of the job's settled attempts, added as each attempt settles (spend.ts): the
   * next attempt gets what is left of `maxUsdPerJob` and `maxTurns`. Absent on records from before the tally.
   */
  spentUsd: z.optional(z.number().check(z.nonnegative())),
  turnsUsed: z.optional(z.number().check(z.int(), z.nonnegative())),
  notBefore: z.optional(IsoTimeSchema),
  retry: z.optional(JobRetrySchema),
  cancelRequested: z._default(z.boolean(), false),
  final: z.optional(
    z.object({
      status: z.enum(['done', 'failed', 'denied', 'cancelled']),
      stopReason: z.optional(StopReasonSchema),
      error: z.optional(z.object({ name: z.string(), message: z.string() })),
    }),
  ),
  createdAt: IsoTimeSchema,
  startedAt: z.optional(IsoTimeSchema),
  endedAt: z.optional(IsoTimeSchema),
  updatedAt: IsoTimeSchema,
});
export type JobRecord = z.infer<typeof JobRecordSchema>;
