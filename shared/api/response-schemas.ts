/**
 * Response schemas of the HTTP API: what the OpenAPI document (openapi.ts) says each route answers. Only the
 * document uses them, and it is built on the first request for it (api-routes.ts), which calls
 * responseSchemas(): no cold start builds these (docs/deploy.md, "Function bundles";
 * test/infra/lazy-schemas.test.ts). The request schemas the routes validate with, and the views they shape
 * answers with, are in schemas.ts.
 */

import { AuditEntrySchema, OwnerAnchorSchema, OwnerChangeSchema, SignedHeadSchema } from '../audit/index.ts';
import { ReceiptSchema } from '../runs/receipts.ts';
import { WORKFLOW_KINDS } from '../schemas/any-workflow.ts';
import { GraphStepSchema } from '../schemas/graph-step.ts';
import { TranscriptMessageSchema } from '../schemas/message.ts';
import { RunSchema, RunStatusSchema } from '../schemas/run.ts';
import { TriggerSchema } from '../schemas/trigger.ts';
import { WorkflowHeadSchema, WorkflowVersionSchema } from '../schemas/workflow-record.ts';
import * as z from '../zod.ts';
import { PublicApprovalSchema, PublicHumanTaskSchema } from './schemas.ts';

/** The response schemas, built on the first call (the OpenAPI document's first request), then the same objects. */
export function responseSchemas() {
  built ??= build();
  return built;
}

let built: ReturnType<typeof build> | undefined;

function build() {
  const ErrorResponseSchema = z.object({
    error: z.object({
      code: z.string().check(z.describe('Stable, machine-readable: not_found, validation_failed, …')),
      message: z.string(),
      fields: z.optional(z.array(z.object({ path: z.string(), message: z.string() }))),
    }),
  });

  const page = <T extends z.ZodMiniType>(item: T) =>
    z.object({
      items: z.array(item),
      nextToken: z.optional(z.string()).check(z.describe('Absent on the last page.')),
    });

  const WorkflowWithVersionResponseSchema = z.object({
    workflow: WorkflowHeadSchema,
    version: WorkflowVersionSchema,
  });
  const WorkflowResponseSchema = z.object({ workflow: WorkflowHeadSchema });
  /** `GET /v1/workflows/{id}/spend`: today's (UTC) spend of all the workflow's runs against its per-day ceiling. */
  const DaySpendResponseSchema = z.object({
    workflowId: z.string(),
    /** UTC day, YYYY-MM-DD. */
    day: z.string(),
    /** Settled spend plus outstanding reservations, in USD. */
    totalUsd: z.number(),
    /** The part of `totalUsd` held by reservations of calls not yet settled. */
    reservedUsd: z.number(),
    /** The latest version's `budget.maxUsdPerDay`; null when it has none. */
    ceilingUsd: z.nullable(z.number()),
  });
  const VersionResponseSchema = z.object({ version: WorkflowVersionSchema });
  /** What an overview shows of a workflow (`GET /v1/workflows?include=summary`), read from its latest version. */
  const WorkflowSummarySchema = z.object({
    kind: z.enum(WORKFLOW_KINDS),
    trigger: TriggerSchema,
    /** The workflow's newest run (by creation), or null when it has none. */
    lastRun: z.nullable(z.object({ runId: z.string(), status: RunStatusSchema, createdAt: z.string() })),
    /** As `GET /v1/workflows/{id}/spend` answers. */
    spend: DaySpendResponseSchema,
  });
  const WorkflowListItemSchema = z.extend(WorkflowHeadSchema, {
    summary: z.optional(WorkflowSummarySchema).check(z.describe('Present with `include=summary` only.')),
  });
  const WorkflowPageSchema = page(WorkflowListItemSchema);
  const RunResponseSchema = z.object({ run: RunSchema });
  const RunPageSchema = page(RunSchema);
  /** A graph run's steps as the API shows them (never a wait's task token). */
  const RunStepsResponseSchema = z.object({
    runId: z.string(),
    steps: z.array(z.omit(GraphStepSchema, { taskToken: true, waitFence: true })),
    nextToken: z
      .optional(z.string())
      .check(z.describe('Present when the run has more steps: pass it back for the next page.')),
  });
  /** One part of a message too large for a page (shared/runs/message-parts.ts); join them with `more`/`continued`. */
  const TranscriptMessagePartSchema = z.extend(z.omit(TranscriptMessageSchema, { content: true }), {
    part: z.number().check(z.int(), z.nonnegative(), z.describe('Which part this is, from 0.')),
    parts: z.number().check(z.int(), z.positive(), z.describe('How many parts the message was cut into.')),
    content: z
      .array(z.looseObject({ type: z.string() }))
      .check(
        z.describe(
          "The message's blocks in this part: a block cut at the part's end has `more: true` and its text goes on " +
            "in the next part's first block, `{ type: 'continued', text }`; a tool_use carries `inputJson` (its " +
            'input as JSON text) instead of `input` when it was too large for a part.',
        ),
      ),
  });
  /**
   * `GET /v1/runs/{id}/transcript`: one page, at most 1,000,000 bytes of messages as sent (a sixth of a Lambda
   * response: shared/runs/transcript-page.ts).
   */
  const TranscriptResponseSchema = z.object({
    runId: z.string(),
    messages: z.array(TranscriptMessageSchema).check(z.describe('Whole messages, in order.')),
    messagePart: z
      .optional(TranscriptMessagePartSchema)
      .check(
        z.describe(
          'Present instead of messages when the next message alone is larger than a page: one part of it.',
        ),
      ),
    nextToken: z.optional(z.string()).check(z.describe('Absent on the last page.')),
  });
  const AuditVerificationSchema = z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), count: z.number().check(z.int()), head: z.string() }),
    z.object({
      ok: z.literal(false),
      firstBrokenSeq: z.number().check(z.int()),
      index: z.number().check(z.int()),
      reason: z.string(),
      message: z.string(),
    }),
  ]);
  /** Where a page of a chain is verified from: its first entry's seq and the hash of the entry before it. */
  const CheckpointSchema = z
    .object({ seq: z.number().check(z.int()), prevHash: z.string() })
    .check(
      z.describe(
        "The page's first entry is seq `seq` and must link to `prevHash`: the chain's genesis hash on the first page, the previous page's last hash after.",
      ),
    );
  /**
   * `GET /v1/runs/{id}/audit`: one page of the run's chain, at most 1,000,000 bytes of entries as sent (a Lambda
   * response is at most 6 MB: shared/api/routes/run-audit.ts), verified from its checkpoint.
   */
  const AuditResponseSchema = z.object({
    runId: z.string(),
    entries: z.array(AuditEntrySchema),
    from: CheckpointSchema,
    verification: AuditVerificationSchema.check(
      z.describe(
        'The entries of this page, linked from `from`; on the last page they must also end at the head recorded on the run.',
      ),
    ),
    /** The run's anchor in its owner's chain, once the run has ended and its chain is final. */
    anchor: z.nullable(OwnerAnchorSchema).check(z.describe('On the last page (null before it).')),
    /** The verified chain ends exactly at the anchored head. */
    anchored: z.boolean().check(z.describe('On the last page: the chain ends exactly at the anchored head.')),
    nextToken: z.optional(z.string()).check(z.describe('Absent on the last page.')),
  });
  /** A verification outcome of an owner-level chain (workflow changes or anchors). */
  const OwnerChainVerificationSchema = AuditVerificationSchema;
  /** The verification of an owner's signed heads: signatures and agreement with the stored chains. */
  const SignedHeadVerificationSchema = z.discriminatedUnion('ok', [
    z.object({
      ok: z.literal(true),
      count: z.number().check(z.int(), z.describe('The signed heads of this page that verified.')),
      newest: z
        .optional(z.nullable(SignedHeadSchema))
        .check(z.describe("On the last page: the owner's newest signed head, verified.")),
      unsigned: z
        .optional(z.object({ anchors: z.number().check(z.int()), changes: z.number().check(z.int()) }))
        .check(z.describe('On the last page: the entries of each chain after the newest signed head.')),
    }),
    z.object({
      ok: z.literal(false),
      index: z.number().check(z.int()),
      reason: z.string(),
      message: z.string(),
    }),
  ]);
  /**
   * `GET /v1/audit`: the caller's workflow-change chain, anchor chain and signed heads, as stored (entries are
   * not schema-checked, so a broken one can be shown and named), each with its verification.
   */
  const OwnerAuditResponseSchema = z.object({
    owner: z.string(),
    changes: z.object({
      entries: z.array(OwnerChangeSchema),
      from: CheckpointSchema,
      verification: OwnerChainVerificationSchema,
    }),
    anchors: z.object({
      entries: z.array(OwnerAnchorSchema),
      from: CheckpointSchema,
      verification: OwnerChainVerificationSchema,
    }),
    signedHeads: z.object({ entries: z.array(SignedHeadSchema), verification: SignedHeadVerificationSchema }),
    nextToken: z.optional(z.string()).check(z.describe('Absent on the last page.')),
  });
  /** `GET /v1/runs/{id}/receipts`: one page of the run's side effects, in ledger order. */
  const ReceiptPageSchema = z.object({
    runId: z.string(),
    items: z.array(ReceiptSchema),
    nextToken: z.optional(z.string()).check(z.describe('Absent on the last page.')),
  });
  const ApprovalPageSchema = page(PublicApprovalSchema);
  const HumanTaskPageSchema = page(PublicHumanTaskSchema);
  /** PutEvents' answer (`POST /v1/events` on AWS); locally `runs` lists the runs started. */
  const PutEventsResponseSchema = z.object({
    FailedEntryCount: z.number().check(z.int()),
    Entries: z.array(
      z.object({
        EventId: z.optional(z.string()),
        ErrorCode: z.optional(z.string()),
        ErrorMessage: z.optional(z.string()),
      }),
    ),
    runs: z.optional(
      z.array(
        z.object({ eventId: z.string(), workflowId: z.string(), runId: z.string(), created: z.boolean() }),
      ),
    ),
  });
  const LocalEventsResponseSchema = z.object({
    FailedEntryCount: z.number().check(z.int()),
    Entries: z.array(z.object({ EventId: z.string() })),
    runs: z.array(
      z.object({ eventId: z.string(), workflowId: z.string(), runId: z.string(), created: z.boolean() }),
    ),
  });
  return {
    ErrorResponseSchema,
    WorkflowWithVersionResponseSchema,
    WorkflowResponseSchema,
    DaySpendResponseSchema,
    VersionResponseSchema,
    WorkflowSummarySchema,
    WorkflowListItemSchema,
    WorkflowPageSchema,
    RunResponseSchema,
    RunPageSchema,
    RunStepsResponseSchema,
    TranscriptMessagePartSchema,
    TranscriptResponseSchema,
    AuditVerificationSchema,
    CheckpointSchema,
    AuditResponseSchema,
    OwnerChainVerificationSchema,
    SignedHeadVerificationSchema,
    OwnerAuditResponseSchema,
    ReceiptPageSchema,
    ApprovalPageSchema,
    HumanTaskPageSchema,
    PutEventsResponseSchema,
    LocalEventsResponseSchema,
  };
}
