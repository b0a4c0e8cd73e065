/**
 * Request and response schemas of the HTTP API. The routes validate with the request schemas and the OpenAPI
 * document is generated from all of them (openapi.ts), so the two cannot drift.
 */
import * as z from 'zod';
import { AuditEntrySchema, OwnerAnchorSchema, OwnerChangeSchema, SignedHeadSchema } from '../audit/index.ts';
import { ReceiptSchema } from '../runs/receipts.ts';
import {
  AnyWorkflowDefinitionSchema,
  StoredWorkflowDefinitionSchema,
  WORKFLOW_KINDS,
} from '../schemas/any-workflow.ts';
import { ApprovalSchema, ApprovalStatusSchema } from '../schemas/approval.ts';
import { GraphStepSchema } from '../schemas/graph-step.ts';
import { HumanTaskSchema, HumanTaskStatusSchema } from '../schemas/human-task.ts';
import { TranscriptMessageSchema } from '../schemas/message.ts';
import { RunSchema, RunStatusSchema } from '../schemas/run.ts';
import { TriggerSchema } from '../schemas/trigger.ts';
import { WorkflowHeadSchema, WorkflowIdSchema, WorkflowVersionSchema } from '../schemas/workflow-record.ts';
import { MAX_VALUE_DEPTH, refineStorable, type StorableLimits } from './storable.ts';

// ---------------------------------------------------------------- limits

export { MAX_BODY_BYTES } from './body-limits.ts';
/** JSON/YAML nesting allowed in a body before any schema sees it (deep inputs stop here, not in a stack overflow). */
export const MAX_BODY_DEPTH = 32;
/** A stored workflow version must stay well under DynamoDB's 400 KB item limit. */
export const DEFINITION_LIMITS: StorableLimits = { maxDepth: MAX_VALUE_DEPTH, maxBytes: 350_000 };
/** Run input is stored on the run and, indented, in the first transcript message. */
export const RUN_INPUT_LIMITS: StorableLimits = {
  maxDepth: MAX_VALUE_DEPTH,
  maxBytes: 256 * 1024,
  indented: true,
};

// ---------------------------------------------------------------- requests

/** A workflow definition of any kind as a request body (JSON or YAML), stored as one immutable version. */
// Pure: only the workflow-write routes and the OpenAPI document use it; other bundles drop it (and Ajv, JSONata).
export const WorkflowDefinitionBodySchema = /* @__PURE__ */ AnyWorkflowDefinitionSchema.superRefine(
  /* @__PURE__ */ refineStorable(DEFINITION_LIMITS),
);

/**
 * The same body as the OpenAPI document describes it: the shapes without the graph checks (refinements have no
 * JSON Schema), so the Api function can serve the document without bundling Ajv and JSONata.
 * test/api/route-split.test.ts fails if its JSON Schema ever differs from WorkflowDefinitionBodySchema's.
 */
export const WorkflowDefinitionShapeSchema = StoredWorkflowDefinitionSchema;

export const StartRunBodySchema = z
  .object({
    input: z.unknown().optional().describe('Any JSON value; given to the model as the run input.'),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.input !== undefined) refineStorable(RUN_INPUT_LIMITS, ['input'])(body.input, ctx);
  });

/** `Idempotency-Key` header of a run start: printable ASCII without spaces. */
export const IdempotencyKeySchema = z
  .string()
  .min(1, 'must not be empty')
  .max(255)
  .regex(/^[\x21-\x7E]+$/, 'must be printable ASCII without spaces');

/** `If-Match` header of a new version: the version the change is based on, e.g. `"3"`. */
export const IfMatchSchema = z
  .string()
  .regex(/^(W\/)?"?[1-9]\d{0,9}"?$/, 'must be the latest version number the change is based on, e.g. "3"')
  .transform((value) => Number(value.replaceAll(/\D/g, '')));

/** The query of `POST /v1/workflows/{id}/versions`: `draft=true` saves a draft instead of publishing. */
export const SaveVersionQuerySchema = z
  .object({
    draft: z
      .enum(['true', 'false'])
      .default('false')
      .describe('true: save a draft (not run, not used by triggers) to replace and publish later.'),
  })
  .strict();

const LimitSchema = z
  .string()
  .regex(/^[1-9]\d{0,2}$/, 'must be a whole number from 1 to 100')
  .transform(Number)
  .pipe(z.number().max(100))
  .describe('Page size, 1–100.');
const NextTokenSchema = z.string().min(1).max(4096).describe('The nextToken of the previous page.');

export const ListWorkflowsQuerySchema = z
  .object({ limit: LimitSchema.optional(), nextToken: NextTokenSchema.optional() })
  .strict();
/** `GET /v1/workflows`: the page query, and `include=summary` for each workflow's overview (workflow-summary.ts). */
export const ListWorkflowHeadsQuerySchema = ListWorkflowsQuerySchema.extend({
  include: z
    .enum(['summary'])
    .optional()
    .describe(
      "summary: each item also carries `summary` (kind, trigger, newest run, today's spend), so an overview needs one call a page.",
    ),
}).strict();
export const ListRunsQuerySchema = ListWorkflowsQuerySchema.extend({
  status: RunStatusSchema.optional(),
  workflowId: WorkflowIdSchema.optional(),
}).strict();
export const ListApprovalsQuerySchema = ListWorkflowsQuerySchema.extend({
  status: ApprovalStatusSchema.optional(),
}).strict();
export const ListHumanTasksQuerySchema = ListWorkflowsQuerySchema.extend({
  status: HumanTaskStatusSchema.optional(),
}).strict();

// ---------------------------------------------------------------- local events

const EventSourceSchema = z
  .string()
  .min(1)
  .max(256)
  .refine(
    (source) => !source.startsWith('aws.'),
    'sources starting with "aws." are reserved for AWS services',
  );
const DetailTypeSchema = z.string().min(1).max(128);
const ResourcesSchema = z.array(z.string().min(1).max(2048)).max(10);
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

export const PutEventsEntryBodySchema = z
  .object({
    Source: EventSourceSchema,
    DetailType: DetailTypeSchema,
    Detail: z
      .string()
      .describe('A JSON object, as a string.')
      .superRefine((text, ctx) => {
        const detail = parseJsonObject(text);
        if (!detail)
          ctx.addIssue({ code: 'custom', message: 'must be a JSON object as a string, e.g. "{}"' });
        else refineStorable(DETAIL_LIMITS)(detail, ctx);
      }),
    Resources: ResourcesSchema.optional(),
    Time: z
      .string()
      .max(64)
      .refine((time) => !Number.isNaN(Date.parse(time)), 'must be an ISO 8601 timestamp')
      .optional(),
    EventBusName: z.string().max(1600).optional().describe("Ignored: events go to the runtime's bus."),
    TraceHeader: z.string().max(500).optional(),
  })
  .strict();

/** The body of EventBridge `PutEvents`. */
export const PutEventsBodySchema = z
  .object({ Entries: z.array(PutEventsEntryBodySchema).min(1).max(10) })
  .strict();

/** A delivered event; fields EventBridge adds (id, time, account, region, version) may be left out. */
export const LocalEventEnvelopeBodySchema = z
  .object({
    version: z.string().max(16).optional(),
    id: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9._:-]+$/, 'must be letters, digits and . _ : - only')
      .optional()
      .describe('A redelivered event keeps its id; each workflow starts one run per id.'),
    'detail-type': DetailTypeSchema,
    source: EventSourceSchema,
    account: z
      .string()
      .regex(/^\d{12}$/, 'must be a 12-digit account id')
      .optional(),
    time: z
      .string()
      .regex(
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/,
        'must be a UTC timestamp such as 2026-01-31T12:00:00Z',
      )
      .refine((time) => !Number.isNaN(Date.parse(time)), 'is not a valid date')
      .optional(),
    region: z.string().max(64).optional(),
    resources: ResourcesSchema.optional(),
    detail: z.record(z.string(), z.unknown()),
  })
  .strict()
  .superRefine((event, ctx) => refineStorable(DETAIL_LIMITS, ['detail'])(event.detail, ctx));

export const LocalEventsBodySchema = z.union([PutEventsBodySchema, LocalEventEnvelopeBodySchema]);

// ---------------------------------------------------------------- responses

export const ErrorResponseSchema = z.object({
  error: z.object({
    code: z.string().describe('Stable, machine-readable: not_found, validation_failed, …'),
    message: z.string(),
    fields: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});

const page = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), nextToken: z.string().optional().describe('Absent on the last page.') });

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
  ceilingUsd: z.number().nullable(),
});
export const VersionResponseSchema = z.object({ version: WorkflowVersionSchema });
/** What an overview shows of a workflow (`GET /v1/workflows?include=summary`), read from its latest version. */
export const WorkflowSummarySchema = z.object({
  kind: z.enum(WORKFLOW_KINDS),
  trigger: TriggerSchema,
  /** The workflow's newest run (by creation), or null when it has none. */
  lastRun: z.object({ runId: z.string(), status: RunStatusSchema, createdAt: z.string() }).nullable(),
  /** As `GET /v1/workflows/{id}/spend` answers. */
  spend: DaySpendResponseSchema,
});
export const WorkflowListItemSchema = WorkflowHeadSchema.extend({
  summary: WorkflowSummarySchema.optional().describe('Present with `include=summary` only.'),
});
export const WorkflowPageSchema = page(WorkflowListItemSchema);
export const RunResponseSchema = z.object({ run: RunSchema });
export const RunPageSchema = page(RunSchema);
/** A graph run's steps as the API shows them (never a wait's task token). */
export const RunStepsResponseSchema = z.object({
  runId: z.string(),
  steps: z.array(GraphStepSchema.omit({ taskToken: true })),
  nextToken: z
    .string()
    .optional()
    .describe('Present when the run has more steps: pass it back for the next page.'),
});
/** `GET /v1/runs/{id}/steps`: `limit` steps at most, and the token of the page before. */
export const StepsQuerySchema = ListWorkflowsQuerySchema;
/** One part of a message too large for a page (shared/runs/message-parts.ts); join them with `more`/`continued`. */
export const TranscriptMessagePartSchema = TranscriptMessageSchema.omit({ content: true }).extend({
  part: z.number().int().nonnegative().describe('Which part this is, from 0.'),
  parts: z.number().int().positive().describe('How many parts the message was cut into.'),
  content: z
    .array(z.looseObject({ type: z.string() }))
    .describe(
      "The message's blocks in this part: a block cut at the part's end has `more: true` and its text goes on " +
        "in the next part's first block, `{ type: 'continued', text }`; a tool_use carries `inputJson` (its " +
        'input as JSON text) instead of `input` when it was too large for a part.',
    ),
});
/**
 * `GET /v1/runs/{id}/transcript`: one page, at most 1,000,000 bytes of messages as sent (a sixth of a Lambda
 * response: shared/runs/transcript-page.ts).
 */
export const TranscriptResponseSchema = z.object({
  runId: z.string(),
  messages: z.array(TranscriptMessageSchema).describe('Whole messages, in order.'),
  messagePart: TranscriptMessagePartSchema.optional().describe(
    'Present instead of messages when the next message alone is larger than a page: one part of it.',
  ),
  nextToken: z.string().optional().describe('Absent on the last page.'),
});
/** `GET /v1/runs/{id}/transcript`: `limit` messages at most (default: as many as fit the page's bytes). */
export const TranscriptQuerySchema = ListWorkflowsQuerySchema;
export const AuditVerificationSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), count: z.number().int(), head: z.string() }),
  z.object({
    ok: z.literal(false),
    firstBrokenSeq: z.number().int(),
    index: z.number().int(),
    reason: z.string(),
    message: z.string(),
  }),
]);
/** `GET /v1/runs/{id}/audit` and `GET /v1/audit`: only the token of the page to read (the first without one). */
export const AuditQuerySchema = z.object({ nextToken: NextTokenSchema.optional() }).strict();
/** Where a page of a chain is verified from: its first entry's seq and the hash of the entry before it. */
export const CheckpointSchema = z
  .object({ seq: z.number().int(), prevHash: z.string() })
  .describe(
    "The page's first entry is seq `seq` and must link to `prevHash`: the chain's genesis hash on the first page, the previous page's last hash after.",
  );
/**
 * `GET /v1/runs/{id}/audit`: one page of the run's chain, at most 1,000,000 bytes of entries as sent (a Lambda
 * response is at most 6 MB: shared/api/routes/run-audit.ts), verified from its checkpoint.
 */
export const AuditResponseSchema = z.object({
  runId: z.string(),
  entries: z.array(AuditEntrySchema),
  from: CheckpointSchema,
  verification: AuditVerificationSchema.describe(
    'The entries of this page, linked from `from`; on the last page they must also end at the head recorded on the run.',
  ),
  /** The run's anchor in its owner's chain, once the run has ended and its chain is final. */
  anchor: OwnerAnchorSchema.nullable().describe('On the last page (null before it).'),
  /** The verified chain ends exactly at the anchored head. */
  anchored: z.boolean().describe('On the last page: the chain ends exactly at the anchored head.'),
  nextToken: z.string().optional().describe('Absent on the last page.'),
});
/** A verification outcome of an owner-level chain (workflow changes or anchors). */
export const OwnerChainVerificationSchema = AuditVerificationSchema;
/** The verification of an owner's signed heads: signatures and agreement with the stored chains. */
export const SignedHeadVerificationSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    count: z.number().int().describe('The signed heads of this page that verified.'),
    newest: SignedHeadSchema.nullable()
      .optional()
      .describe("On the last page: the owner's newest signed head, verified."),
    unsigned: z
      .object({ anchors: z.number().int(), changes: z.number().int() })
      .optional()
      .describe('On the last page: the entries of each chain after the newest signed head.'),
  }),
  z.object({ ok: z.literal(false), index: z.number().int(), reason: z.string(), message: z.string() }),
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
  nextToken: z.string().optional().describe('Absent on the last page.'),
});
/** `GET /v1/runs/{id}/receipts`: one page of the run's side effects, in ledger order. */
export const ReceiptPageSchema = z.object({
  runId: z.string(),
  items: z.array(ReceiptSchema),
  nextToken: z.string().optional().describe('Absent on the last page.'),
});
export const ListReceiptsQuerySchema = ListWorkflowsQuerySchema;
/** An approval as the API shows it: never with its Step Functions task token. */
export const PublicApprovalSchema = ApprovalSchema.omit({ taskToken: true });
export const ApprovalPageSchema = page(PublicApprovalSchema);
/** A human task as the API shows it: never with its Step Functions task token. */
export const PublicHumanTaskSchema = HumanTaskSchema.omit({ taskToken: true });
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
  FailedEntryCount: z.number().int(),
  Entries: z.array(
    z.object({
      EventId: z.string().optional(),
      ErrorCode: z.string().optional(),
      ErrorMessage: z.string().optional(),
    }),
  ),
  runs: z
    .array(z.object({ eventId: z.string(), workflowId: z.string(), runId: z.string(), created: z.boolean() }))
    .optional(),
});
export const LocalEventsResponseSchema = z.object({
  FailedEntryCount: z.number().int(),
  Entries: z.array(z.object({ EventId: z.string() })),
  runs: z.array(
    z.object({ eventId: z.string(), workflowId: z.string(), runId: z.string(), created: z.boolean() }),
  ),
});
