/**
 * Request and response schemas of the HTTP API. The routes validate with the request schemas and the OpenAPI
 * document is generated from all of them (openapi.ts), so the two cannot drift.
 */

import { AuditEntrySchema, OwnerAnchorSchema, OwnerChangeSchema, SignedHeadSchema } from '../audit/index.ts';
import { ReceiptSchema } from '../runs/receipts.ts';
import { StoredWorkflowDefinitionSchema, WORKFLOW_KINDS } from '../schemas/any-workflow.ts';
import { ApprovalSchema, ApprovalStatusSchema } from '../schemas/approval.ts';
import { GraphStepSchema } from '../schemas/graph-step.ts';
import { HumanTaskSchema, HumanTaskStatusSchema } from '../schemas/human-task.ts';
import { TranscriptMessageSchema } from '../schemas/message.ts';
import { RunSchema, RunStatusSchema } from '../schemas/run.ts';
import { TriggerSchema } from '../schemas/trigger.ts';
import { WorkflowHeadSchema, WorkflowIdSchema, WorkflowVersionSchema } from '../schemas/workflow-record.ts';
import * as z from '../zod.ts';
import { MAX_VALUE_DEPTH, RUN_INPUT_MAX_BYTES, refineStorable, type StorableLimits } from './storable.ts';

// ---------------------------------------------------------------- limits

export { MAX_BODY_BYTES } from './body-limits.ts';
export {
  DEFINITION_LIMITS,
  IfMatchSchema,
  MAX_BODY_DEPTH,
  SaveVersionQuerySchema,
  WorkflowDefinitionBodySchema,
} from './write-schemas.ts';

/** Run input is stored on the run and, indented, in the first transcript message. */
export const RUN_INPUT_LIMITS: StorableLimits = {
  maxDepth: MAX_VALUE_DEPTH,
  maxBytes: RUN_INPUT_MAX_BYTES,
  indented: true,
};

// ---------------------------------------------------------------- requests

/**
 * The same body as the OpenAPI document describes it: the shapes without the graph checks (refinements have no
 * JSON Schema), so the Api function can serve the document without bundling Ajv and JSONata.
 * test/api/route-split.test.ts fails if its JSON Schema ever differs from WorkflowDefinitionBodySchema's.
 */
export const WorkflowDefinitionShapeSchema = StoredWorkflowDefinitionSchema;

export const StartRunBodySchema = z
  .strictObject({
    input: z.optional(z.unknown()).check(z.describe('Any JSON value; given to the model as the run input.')),
  })
  .check(
    z.superRefine((body, ctx) => {
      if (body.input !== undefined) refineStorable(RUN_INPUT_LIMITS, ['input'])(body.input, ctx);
    }),
  );

/** `Idempotency-Key` header of a run start: printable ASCII without spaces. */
export const IdempotencyKeySchema = z
  .string()
  .check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(255),
    z.regex(/^[\x21-\x7E]+$/, 'must be printable ASCII without spaces'),
  );

const LimitSchema = z
  .pipe(
    z.pipe(
      z.string().check(z.regex(/^[1-9]\d{0,2}$/, 'must be a whole number from 1 to 100')),
      z.transform(Number),
    ),
    z.number().check(z.lte(100)),
  )
  .check(z.describe('Page size, 1–100.'));
const NextTokenSchema = z
  .string()
  .check(z.minLength(1), z.maxLength(4096), z.describe('The nextToken of the previous page.'));

export const ListWorkflowsQuerySchema = z.strictObject({
  limit: z.optional(LimitSchema),
  nextToken: z.optional(NextTokenSchema),
});
/** `GET /v1/workflows`: the page query, and `include=summary` for each workflow's overview (workflow-summary.ts). */
export const ListWorkflowHeadsQuerySchema = z.catchall(
  z.extend(ListWorkflowsQuerySchema, {
    include: z
      .optional(z.enum(['summary']))
      .check(
        z.describe(
          "summary: each item also carries `summary` (kind, trigger, newest run, today's spend), so an overview needs one call a page.",
        ),
      ),
  }),
  z.never(),
);
export const ListRunsQuerySchema = z.catchall(
  z.extend(ListWorkflowsQuerySchema, {
    status: z.optional(RunStatusSchema),
    workflowId: z.optional(WorkflowIdSchema),
  }),
  z.never(),
);
export const ListApprovalsQuerySchema = z.catchall(
  z.extend(ListWorkflowsQuerySchema, {
    status: z.optional(ApprovalStatusSchema),
  }),
  z.never(),
);
export const ListHumanTasksQuerySchema = z.catchall(
  z.extend(ListWorkflowsQuerySchema, {
    status: z.optional(HumanTaskStatusSchema),
  }),
  z.never(),
);

// ---------------------------------------------------------------- local events

const EventSourceSchema = z.string().check(
  z.minLength(1),
  z.maxLength(256),
  z.refine(
    (source) => !source.startsWith('aws.'),
    'sources starting with "aws." are reserved for AWS services',
  ),
);
const DetailTypeSchema = z.string().check(z.minLength(1), z.maxLength(128));
const ResourcesSchema = z.array(z.string().check(z.minLength(1), z.maxLength(2048))).check(z.maxLength(10));
/** Room in the run input for the envelope fields around `detail`. */
const DETAIL_LIMITS: StorableLimits = {
  maxDepth: MAX_VALUE_DEPTH - 1,
  maxBytes: (RUN_INPUT_LIMITS.maxBytes ?? 0) - 32 * 1024,
  indented: true,
};

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export const PutEventsEntryBodySchema = z.strictObject({
  Source: EventSourceSchema,
  DetailType: DetailTypeSchema,
  Detail: z.string().check(
    z.describe('A JSON object, as a string.'),
    z.superRefine((text, ctx) => {
      const detail = parseJsonObject(text);
      if (!detail) ctx.addIssue({ code: 'custom', message: 'must be a JSON object as a string, e.g. "{}"' });
      else refineStorable(DETAIL_LIMITS)(detail, ctx);
    }),
  ),
  Resources: z.optional(ResourcesSchema),
  Time: z.optional(
    z.string().check(
      z.maxLength(64),
      z.refine((time) => !Number.isNaN(Date.parse(time)), 'must be an ISO 8601 timestamp'),
    ),
  ),
  EventBusName: z
    .optional(z.string().check(z.maxLength(1600)))
    .check(z.describe("Ignored: events go to the runtime's bus.")),
  TraceHeader: z.optional(z.string().check(z.maxLength(500))),
});

/** The body of EventBridge `PutEvents`. */
export const PutEventsBodySchema = z.strictObject({
  Entries: z.array(PutEventsEntryBodySchema).check(z.minLength(1), z.maxLength(10)),
});

/** A delivered event; fields EventBridge adds (id, time, account, region, version) may be left out. */
export const LocalEventEnvelopeBodySchema = z
  .strictObject({
    version: z.optional(z.string().check(z.maxLength(16))),
    id: z
      .optional(
        z
          .string()
          .check(
            z.minLength(1),
            z.maxLength(128),
            z.regex(/^[A-Za-z0-9._:-]+$/, 'must be letters, digits and . _ : - only'),
          ),
      )
      .check(z.describe('A redelivered event keeps its id; each workflow starts one run per id.')),
    'detail-type': DetailTypeSchema,
    source: EventSourceSchema,
    account: z.optional(z.string().check(z.regex(/^\d{12}$/, 'must be a 12-digit account id'))),
    time: z.optional(
      z.string().check(
        z.regex(
          /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/,
          'must be a UTC timestamp such as 2026-01-31T12:00:00Z',
        ),
        z.refine((time) => !Number.isNaN(Date.parse(time)), 'is not a valid date'),
      ),
    ),
    region: z.optional(z.string().check(z.maxLength(64))),
    resources: z.optional(ResourcesSchema),
    detail: z.record(z.string(), z.unknown()),
  })
  .check(z.superRefine((event, ctx) => refineStorable(DETAIL_LIMITS, ['detail'])(event.detail, ctx)));

export const LocalEventsBodySchema = z.union([PutEventsBodySchema, LocalEventEnvelopeBodySchema]);

// ---------------------------------------------------------------- responses

export const ErrorResponseSchema = z.object({
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

export const WorkflowWithVersionResponseSchema = z.object({
  workflow: WorkflowHeadSchema,
  version: WorkflowVersionSchema,
});
export const WorkflowResponseSchema = z.object({ workflow: WorkflowHeadSchema });
/** `GET /v1/workflows/{id}/spend`: today's (UTC) spend of all the workflow's runs against its per-day ceiling. */
export const DaySpendResponseSchema = z.object({
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
export const VersionResponseSchema = z.object({ version: WorkflowVersionSchema });
/** What an overview shows of a workflow (`GET /v1/workflows?include=summary`), read from its latest version. */
export const WorkflowSummarySchema = z.object({
  kind: z.enum(WORKFLOW_KINDS),
  trigger: TriggerSchema,
  /** The workflow's newest run (by creation), or null when it has none. */
  lastRun: z.nullable(z.object({ runId: z.string(), status: RunStatusSchema, createdAt: z.string() })),
  /** As `GET /v1/workflows/{id}/spend` answers. */
  spend: DaySpendResponseSchema,
});
export const WorkflowListItemSchema = z.extend(WorkflowHeadSchema, {
  summary: z.optional(WorkflowSummarySchema).check(z.describe('Present with `include=summary` only.')),
});
export const WorkflowPageSchema = page(WorkflowListItemSchema);
export const RunResponseSchema = z.object({ run: RunSchema });
export const RunPageSchema = page(RunSchema);
/** A graph run's steps as the API shows them (never a wait's task token). */
export const RunStepsResponseSchema = z.object({
  runId: z.string(),
  steps: z.array(z.omit(GraphStepSchema, { taskToken: true, waitFence: true })),
  nextToken: z
    .optional(z.string())
    .check(z.describe('Present when the run has more steps: pass it back for the next page.')),
});
/** `GET /v1/runs/{id}/steps`: `limit` steps at most, and the token of the page before. */
export const StepsQuerySchema = ListWorkflowsQuerySchema;
/** One part of a message too large for a page (shared/runs/message-parts.ts); join them with `more`/`continued`. */
export const TranscriptMessagePartSchema = z.extend(z.omit(TranscriptMessageSchema, { content: true }), {
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
export const TranscriptResponseSchema = z.object({
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
/** `GET /v1/runs/{id}/transcript`: `limit` messages at most (default: as many as fit the page's bytes). */
export const TranscriptQuerySchema = ListWorkflowsQuerySchema;
export const AuditVerificationSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), count: z.number().check(z.int()), head: z.string() }),
  z.object({
    ok: z.literal(false),
    firstBrokenSeq: z.number().check(z.int()),
    index: z.number().check(z.int()),
    reason: z.string(),
    message: z.string(),
  }),
]);
/** `GET /v1/runs/{id}/audit` and `GET /v1/audit`: only the token of the page to read (the first without one). */
export const AuditQuerySchema = z.strictObject({ nextToken: z.optional(NextTokenSchema) });
/** Where a page of a chain is verified from: its first entry's seq and the hash of the entry before it. */
export const CheckpointSchema = z
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
export const AuditResponseSchema = z.object({
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
export const OwnerChainVerificationSchema = AuditVerificationSchema;
/** The verification of an owner's signed heads: signatures and agreement with the stored chains. */
export const SignedHeadVerificationSchema = z.discriminatedUnion('ok', [
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
export const OwnerAuditResponseSchema = z.object({
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
export const ReceiptPageSchema = z.object({
  runId: z.string(),
  items: z.array(ReceiptSchema),
  nextToken: z.optional(z.string()).check(z.describe('Absent on the last page.')),
});
export const ListReceiptsQuerySchema = ListWorkflowsQuerySchema;
/** An approval as the API shows it: never with its Step Functions task token or the wait attempt that stored it. */
export const PublicApprovalSchema = z.omit(ApprovalSchema, { taskToken: true, fence: true });
export const ApprovalPageSchema = page(PublicApprovalSchema);
/** A human task as the API shows it: never with its Step Functions task token. */
export const PublicHumanTaskSchema = z.omit(HumanTaskSchema, { taskToken: true, waitFence: true });
export const HumanTaskPageSchema = page(PublicHumanTaskSchema);
/** `GET /v1/me`: who the caller is to the runtime, and where that owner's credential secrets must live. */
export const MeResponseSchema = z.object({
  /** The owner everything the caller creates belongs to (from verified identity). */
  owner: z.string(),
  /** The authenticated principal, recorded as the author of workflow changes. */
  principal: z.string(),
  /** The owner's key in credential secret names and the `wf-owner` tag (`wf owner-key`). */
  ownerKey: z.string(),
  /** Credential secrets of this owner are named `<secretPrefix><name>` and tagged `wf-owner=<ownerKey>`. */
  secretPrefix: z.string(),
});
/** PutEvents' answer (`POST /v1/events` on AWS); locally `runs` lists the runs started. */
export const PutEventsResponseSchema = z.object({
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
export const LocalEventsResponseSchema = z.object({
  FailedEntryCount: z.number().check(z.int()),
  Entries: z.array(z.object({ EventId: z.string() })),
  runs: z.array(
    z.object({ eventId: z.string(), workflowId: z.string(), runId: z.string(), created: z.boolean() }),
  ),
});
