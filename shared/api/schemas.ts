/**
 * Request and response schemas of the HTTP API. The routes validate with the request schemas and the OpenAPI
 * document is generated from all of them (openapi.ts), so the two cannot drift.
 */

import {
  MAX_VALUE_DEPTH,
  RUN_INPUT_MAX_BYTES,
  refineStorable,
  type StorableLimits,
} from '../core/storable.ts';
import { StoredWorkflowDefinitionSchema } from '../schemas/any-workflow.ts';
import { ApprovalSchema, ApprovalStatusSchema } from '../schemas/approval.ts';
import { HumanTaskSchema, HumanTaskStatusSchema } from '../schemas/human-task.ts';
import { RunStatusSchema } from '../schemas/run.ts';
import { WorkflowIdSchema } from '../schemas/workflow-record.ts';
import * as z from '../zod.ts';

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

// ---------------------------------------------------------------- queries and views the routes use
/** `GET /v1/runs/{id}/steps`: `limit` steps at most, and the token of the page before. */
export const StepsQuerySchema = ListWorkflowsQuerySchema;
/** `GET /v1/runs/{id}/transcript`: `limit` messages at most (default: as many as fit the page's bytes). */
export const TranscriptQuerySchema = ListWorkflowsQuerySchema;
/** `GET /v1/runs/{id}/audit` and `GET /v1/audit`: only the token of the page to read (the first without one). */
export const AuditQuerySchema = z.strictObject({ nextToken: z.optional(NextTokenSchema) });
export const ListReceiptsQuerySchema = ListWorkflowsQuerySchema;
/** An approval as the API shows it: never with its Step Functions task token or the wait attempt that stored it. */
export const PublicApprovalSchema = z.omit(ApprovalSchema, { taskToken: true, fence: true });
/** A human task as the API shows it: never with its Step Functions task token. */
export const PublicHumanTaskSchema = z.omit(HumanTaskSchema, { taskToken: true, waitFence: true });
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
