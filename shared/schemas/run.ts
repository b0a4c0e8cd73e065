/** Runs: one execution of one workflow version, with statuses, stop reasons, provenance, usage and cost. */
import * as z from '../zod.ts';
import { IsoTimeSchema, OwnerIdSchema, SCHEMA_VERSION, UsageSchema } from './common.ts';
import { ExternalRunSchema } from './external-run.ts';
import { GrantIdSchema, JobTriggerSchema } from './job.ts';
import { WorkflowIdSchema } from './workflow-record.ts';

export const RUN_STATUSES = [
  'pending',
  'running',
  'awaiting_approval',
  'done',
  'failed',
  'denied',
  'cancelled',
] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/**
 * Allowed status transitions, as data. `running → running` is a committed turn. A pending run's turn 0 that
 * spends the reservation its creation made writes nothing before its model call, so its first write both
 * starts the run and may park or end it (`pending → awaiting_approval | done`, through `running` in its audit).
 */
export const RUN_TRANSITIONS = {
  pending: ['running', 'awaiting_approval', 'done', 'failed', 'denied', 'cancelled'],
  running: ['running', 'awaiting_approval', 'done', 'failed', 'denied', 'cancelled'],
  awaiting_approval: ['running', 'failed', 'denied', 'cancelled'],
  done: [],
  failed: [],
  denied: [],
  cancelled: [],
} as const satisfies Record<RunStatus, readonly RunStatus[]>;

export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['done', 'failed', 'denied', 'cancelled'];
export const isTerminalRunStatus = (status: RunStatus): boolean => TERMINAL_RUN_STATUSES.includes(status);
export const canTransition = (from: RunStatus, to: RunStatus): boolean =>
  (RUN_TRANSITIONS[from] as readonly RunStatus[]).includes(to);

export const STOP_REASONS = [
  'end_turn',
  'max_tokens',
  'refusal',
  'max_turns',
  'budget_exceeded',
  'timeout',
  'cancelled',
  'policy_denied',
  'error',
  /** An external run whose engine gave no usable answer until `observe.unknownDeadlineSeconds`: not a failure. */
  'outcome_unknown',
  /** An external run in mode `shadow`: key and payload decided and recorded, nothing dispatched. */
  'shadow',
  /** An external run whose engine answered every Start "at capacity" (429/503) until the run's deadline. */
  'engine_at_capacity',
] as const;
export const StopReasonSchema = z.enum(STOP_REASONS);
export type StopReason = z.infer<typeof StopReasonSchema>;

/**
 * Where a run came from; given to the model as trigger context. `replacesRunId` (a schedule's or an event's):
 * the run of the same scheduled time or event id that ended without ever starting (`error.name:
 * ExecutionNotStarted`), which this run replaced when the trigger came again (shared/runs/start-run.ts).
 */
export const TriggerProvenanceSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('schedule'),
    scheduleName: z.string(),
    scheduledTime: IsoTimeSchema,
    replacesRunId: z.optional(z.string()),
  }),
  z.object({
    type: z.literal('event'),
    eventId: z.string(),
    source: z.string(),
    detailType: z.string(),
    replacesRunId: z.optional(z.string()),
  }),
  z.object({ type: z.literal('on_demand'), caller: z.string(), idempotencyKey: z.optional(z.string()) }),
  /** A delegated job (docs/jobs.md): its client, grant version and attempt. */
  JobTriggerSchema,
]);
export type TriggerProvenance = z.infer<typeof TriggerProvenanceSchema>;

/** The outcome a committed turn handed to the state machine; replayed to a retried invocation. */
export const TurnNextSchema = z.enum(['continue', 'await_approval', 'done', 'failed', 'continue_as_new']);
export type TurnNext = z.infer<typeof TurnNextSchema>;

export const RunSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  runId: z.string().check(z.regex(/^run_[A-Za-z0-9]{6,40}$/)),
  /**
   * What runs it: absent or `agent` (a Turn loop), `graph` (the graph state machine), `external` (an engine,
   * through the external state machine).
   */
  kind: z.optional(z.enum(['agent', 'graph', 'external'])),
  /** An external run: mode, key, payload, execution, observations, artifact, cancel facts. */
  external: z.optional(ExternalRunSchema),
  /** A child agent run of a graph step: the step that waits for it (its task token is on the step item). */
  parent: z.optional(
    z.object({
      runId: z.string(),
      stepId: z.string(),
      attempt: z.number().check(z.int(), z.positive()),
      /**
       * The graph's `budget.maxUsdPerRun`: the ceiling of all the graph run's child runs together, enforced on
       * the graph run's spend counter (core/reservation-parts.ts). Absent on children created before it existed.
       */
      maxUsdPerRun: z.optional(z.number().check(z.positive())),
    }),
  ),
  /** A graph run an operator paused: no new step starts until it is resumed (running steps finish). */
  paused: z.optional(z.literal(true)),
  owner: OwnerIdSchema,
  /** The saved workflow, or for a delegated job its client's grant (`grant_…`, see schemas/job.ts). */
  workflowId: z.union([WorkflowIdSchema, GrantIdSchema]),
  workflowName: z.string(),
  workflowVersion: z.number().check(z.int(), z.positive()),
  status: RunStatusSchema,
  stopReason: z.optional(StopReasonSchema),
  /** Number of committed turns; the state machine's fence. */
  turn: z.number().check(z.int(), z.nonnegative()),
  /** Optimistic-concurrency counter: every write to the run item is conditional on it. */
  rev: z.number().check(z.int(), z.nonnegative()),
  trigger: TriggerProvenanceSchema,
  input: z.optional(z.unknown()),
  usage: UsageSchema,
  costUsd: z.number().check(z.nonnegative()),
  /** A budget reservation for the model call of `turn`, if one is outstanding. */
  reservation: z.optional(
    z.object({
      turn: z.number().check(z.int()),
      usd: z.number().check(z.nonnegative()),
      day: z.string(),
      /** Counted against the workflow's per-day ceiling too (released there when the run ends without the call). */
      daily: z._default(z.boolean(), false),
      /** Counted against the parent graph run's spend counter too (a graph child with `parent.maxUsdPerRun`). */
      graph: z.optional(z.literal(true)),
      /**
       * Made ahead for this turn's model call (core/attempt.ts), in the execution named `executionName`: by the
       * previous turn's commit, in its own execution; or, for turn 0, by the run's creation, for its first
       * execution, named after the run (core/first-reservation.ts). Only the first attempt of the turn in that
       * execution may spend it; any other counts it as spent. Items written before this release may hold the
       * execution's ARN instead (`{ executionId }`), read as before.
       */
      ahead: z.optional(
        z.union([
          // `executionId: ''` beside the name: the previous release reads `ahead` as `{ executionId }` only
          // (a missing one fails its parse), and an empty id is never its execution, so its Turn counts this
          // reservation as spent and reserves again: an upgrade or a rollback over-counts, never fails a run.
          z.object({ executionName: z.string(), executionId: z.optional(z.literal('')) }),
          z.object({ executionId: z.string() }),
        ]),
      ),
    }),
  ),
  modelCalls: z.number().check(z.int(), z.nonnegative()),
  messageCount: z.number().check(z.int(), z.nonnegative()),
  pendingApprovalIds: z.array(z.string()),
  /**
   * Set while the run waits on approvals for a message none of whose calls has a ledger row (every call was
   * held for approval): the resuming turn reads no ledger. A commit that creates a ledger row drops it
   * (shared/store/commit.ts), so a resume that dispatched and crashed reads the ledger again.
   */
  awaitingUnrecorded: z.optional(z.literal(true)),
  /**
   * The decisions on a turn's pending approvals, written in the same transaction as each decision (or expiry,
   * or undeliverable denial), so the resuming turn reads them with the run instead of reading each approval.
   * Every write of an approval is a fenced commit of its run, so this is never older than the approvals it
   * names. Dropped with `pendingApprovalIds` (shared/store/commit.ts). docs/approvals.md.
   */
  approvalDecisions: z.optional(
    z.array(
      z.object({
        approvalId: z.string(),
        status: z.enum(['approved', 'denied', 'expired', 'undeliverable']),
        /** The hash of the exact arguments decided on (tool and args): the resume re-hashes and compares. */
        argsHash: z.string(),
        decidedBy: z.optional(z.string()),
      }),
    ),
  ),
  lastNext: z.optional(TurnNextSchema),
  result: z.optional(z.object({ text: z.string() })),
  error: z.optional(z.object({ name: z.string(), message: z.string() })),
  /**
   * A schedule's or an event's run that ended without ever starting (`error.name: ExecutionNotStarted`): the
   * run its trigger started in its place when it came again (whose `trigger.replacesRunId` names this one),
   * written in that run's creating transaction (shared/store/runs.ts). Absent on every other run.
   */
  replacedBy: z.optional(z.string().check(z.regex(/^run_[A-Za-z0-9]{6,40}$/))),
  executionArn: z.optional(z.string()),
  /**
   * The run's current execution when it is a continue-as-new of an earlier one: that execution's name after
   * `<runId>-` (`c<turn>-<md5 hex>`, infra/constructs/run-state-machine.ts CONTINUATION_NAME). Written by the first
   * commit of the continuation's first turn (shared/core/live-execution.ts), which drops `executionArn`; an
   * execution recorded later by its ARN (a resume) drops this. shared/runs/execution-arn.ts reads both.
   */
  continuedAs: z.optional(z.string().check(z.maxLength(80))),
  /**
   * Set when the run finished its work (`end_turn`) but a call the model asked for was refused on the way (a
   * `deny` gate, an approver's denial, an expired approval, a withdrawn action): the run then ends `denied`, not
   * `done`, and its destination is told it is degraded.
   */
  degraded: z.optional(
    z.object({
      refused: z
        .array(
          z.object({
            tool: z.string(),
            toolUseId: z.string(),
            turn: z.number().check(z.int(), z.nonnegative()),
            reason: z.string().check(z.maxLength(300)),
          }),
        )
        .check(z.maxLength(100)),
      /** How many calls were refused in all (the list keeps the first 100). */
      count: z.number().check(z.int(), z.positive()),
    }),
  ),
  /** Set once the result was delivered to the workflow's destination (Deliver is idempotent on it). */
  delivery: z.optional(
    z.object({
      destination: z.string(),
      /** `refused`: the destination refused it for good (denied, misconfigured, failed); see `detail`. */
      status: z.enum(['delivered', 'refused']),
      at: IsoTimeSchema,
      report: z.optional(z.string()),
      detail: z.optional(z.string()),
    }),
  ),
  audit: z.object({ seq: z.number().check(z.int(), z.nonnegative()), head: z.string() }),
  createdAt: IsoTimeSchema,
  updatedAt: IsoTimeSchema,
  endedAt: z.optional(IsoTimeSchema),
  deadlineAt: IsoTimeSchema,
});
export type Run = z.infer<typeof RunSchema>;
