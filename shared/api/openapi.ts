/**
 * The OpenAPI 3.1 document of the API, generated from the same zod schemas the routes validate with
 * (`z.toJSONSchema`; JSON Schema 2020-12 is OpenAPI 3.1's dialect). Served at `GET /v1/openapi.json`;
 * `docs/openapi.json` is written by write-openapi.ts and a test fails when it is stale.
 */

import { AuditEntrySchema } from '../audit/index.ts';
import { TranscriptMessageSchema } from '../schemas/message.ts';
import { RunSchema } from '../schemas/run.ts';
import { GENERATED_RUN_ID } from '../schemas/run-id.ts';
import { WorkflowHeadSchema, WorkflowVersionSchema } from '../schemas/workflow-record.ts';
import * as z from '../zod.ts';
import { JOB_INPUT_COMPONENTS, jobOutputComponents } from './openapi-jobs.ts';
import { OPERATIONS, type Operation } from './openapi-operations.ts';
import { responseSchemas } from './response-schemas.ts';
import * as s from './schemas.ts';

type Json = Record<string, unknown>;
const REF = '#/components/schemas/';

const INPUT_COMPONENTS: Record<string, z.ZodMiniType> = {
  WorkflowDefinition: s.WorkflowDefinitionShapeSchema,
  StartRunRequest: s.StartRunBodySchema,
  PutEventsRequest: s.PutEventsBodySchema,
  LocalEvent: s.LocalEventEnvelopeBodySchema,
  LocalEventsRequest: s.LocalEventsBodySchema,
  ...JOB_INPUT_COMPONENTS,
};
/**
 * The response schemas are built here, on the document's first request: no invocation of another route uses them
 * (response-schemas.ts).
 */
function outputComponents(): Record<string, z.ZodMiniType> {
  const r = responseSchemas();
  return {
    Error: r.ErrorResponseSchema,
    WorkflowHead: WorkflowHeadSchema,
    WorkflowVersion: WorkflowVersionSchema,
    WorkflowWithVersion: r.WorkflowWithVersionResponseSchema,
    WorkflowResponse: r.WorkflowResponseSchema,
    DaySpendResponse: r.DaySpendResponseSchema,
    VersionResponse: r.VersionResponseSchema,
    WorkflowSummary: r.WorkflowSummarySchema,
    WorkflowListItem: r.WorkflowListItemSchema,
    WorkflowPage: r.WorkflowPageSchema,
    Run: RunSchema,
    RunResponse: r.RunResponseSchema,
    RunStepsResponse: r.RunStepsResponseSchema,
    RunPage: r.RunPageSchema,
    TranscriptMessage: TranscriptMessageSchema,
    TranscriptResponse: r.TranscriptResponseSchema,
    ReceiptPage: r.ReceiptPageSchema,
    AuditEntry: AuditEntrySchema,
    AuditVerification: r.AuditVerificationSchema,
    AuditResponse: r.AuditResponseSchema,
    OwnerAuditResponse: r.OwnerAuditResponseSchema,
    Approval: s.PublicApprovalSchema,
    ApprovalPage: r.ApprovalPageSchema,
    HumanTaskPage: r.HumanTaskPageSchema,
    MeResponse: s.MeResponseSchema,
    PutEventsResponse: r.PutEventsResponseSchema,
    LocalEventsResponse: r.LocalEventsResponseSchema,
    ...jobOutputComponents(),
  };
}

const toJson = (schema: z.ZodMiniType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;

/** Rewrites zod's shared-definition refs (`…/__shared#/$defs/x`) to components (`Shared_x`). */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '$schema' || key === '$id') continue;
    out[key] =
      key === '$ref' && typeof child === 'string'
        ? child.replace(`${REF}__shared#/$defs/`, `${REF}Shared_`)
        : rewriteRefs(child);
  }
  return out;
}

/** Component schemas: each registered schema once, nested registered schemas as `$ref`s. */
function componentSchemas(): Json {
  const schemas: Json = {};
  for (const [io, components] of [
    ['input', INPUT_COMPONENTS],
    ['output', outputComponents()],
  ] as const) {
    const registry = z.registry<{ id: string }>();
    for (const [id, schema] of Object.entries(components)) registry.add(schema, { id });
    const generated = z.toJSONSchema(registry, {
      io,
      uri: (id) => `${REF}${id}`,
      unrepresentable: 'any',
      target: 'draft-2020-12',
    }).schemas as Record<string, Json>;
    for (const [id, schema] of Object.entries(generated)) {
      if (id === '__shared') {
        for (const [name, def] of Object.entries((schema.$defs ?? {}) as Json))
          schemas[`Shared_${name}`] = rewriteRefs(def);
      } else schemas[id] = rewriteRefs(schema);
    }
  }
  return schemas;
}

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: `${REF}Error` } } },
});

/**
 * A path parameter's schema: a version number, a run id in the shape the runtime makes (the run routes answer
 * any other as a missing run: shared/api/routes/runs.ts), or a string.
 */
function pathParamSchema(path: string, name: string): Json {
  if (name === 'version') return { type: 'integer', minimum: 1 };
  if (name === 'id' && path.startsWith('/v1/runs/'))
    return { type: 'string', pattern: GENERATED_RUN_ID.source };
  return { type: 'string' };
}

function operation(op: Operation): Json {
  const parameters: Json[] = [];
  for (const name of op.pathParams ?? []) {
    parameters.push({
      name,
      in: 'path',
      required: true,
      schema: pathParamSchema(op.path, name),
    });
  }
  if (op.query) {
    for (const [name, schema] of Object.entries(op.query.shape)) {
      const json = rewriteRefs(toJson(schema as z.ZodMiniType, 'input')) as Json;
      parameters.push({
        name,
        in: 'query',
        required: false,
        ...(json.description ? { description: json.description } : {}),
        schema: json,
      });
    }
  }
  for (const header of op.headers ?? []) {
    parameters.push({
      name: header.name,
      in: 'header',
      required: false,
      description: header.description,
      schema: rewriteRefs(toJson(header.schema, 'input')),
    });
  }
  const responses: Json = {};
  for (const [status, response] of Object.entries(op.responses)) {
    responses[status] = response.schema
      ? {
          description: response.description,
          content: { 'application/json': { schema: { $ref: `${REF}${response.schema}` } } },
        }
      : { description: response.description };
  }
  for (const [status, description] of Object.entries(op.errors))
    responses[status] = errorResponse(description);
  if (op.authenticated !== false) {
    responses['401'] = errorResponse('Not authenticated.');
    // Any authenticated route: a credential of the wrong kind (a jobs client on an owner route, or an owner on
    // /v1/jobs; an IAM federated user) is refused with the reason (shared/api/auth.ts).
    responses['403'] ??= errorResponse('`forbidden`: this kind of credential may not use this route.');
  }
  responses['500'] = errorResponse('Internal error (details are logged, not returned).');
  // Every authenticated route reads or writes the store: a throttle or a transient fault after the SDK's
  // retries is a 503 with `Retry-After` (errors.ts). The one unauthenticated route serves this document.
  if (op.authenticated !== false)
    responses['503'] ??= errorResponse(
      '`throttled` or `unavailable`: DynamoDB was busy or briefly unreachable; send the same request again after `Retry-After`.',
    );
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    ...(op.authenticated === false ? { security: [] } : {}),
    ...(op.localOnly ? { 'x-local-only': true } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: op.body.required,
            content: Object.fromEntries(
              op.body.mediaTypes.map((type) => [type, { schema: { $ref: `${REF}${op.body?.schema}` } }]),
            ),
          },
        }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document (deterministic: the same schemas give the same bytes). */
export function openApiDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    paths[op.path]![op.method] = operation(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workflow runtime API',
      version: '1',
      description:
        'Workflows, runs, audit and approvals of an LLM-workflow runtime. Errors are { error: { code, message, fields? } }. Reference: docs/api.md.',
    },
    security: [{ iam: [] }, { jwt: [] }, { apiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        iam: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'AWS Signature Version 4 (service execute-api); the default deployment.',
          'x-amazon-apigateway-authtype': 'awsSigv4',
        },
        jwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'API Gateway JWT authorizer.',
        },
        apiKey: { type: 'http', scheme: 'bearer', description: 'Local stack: a key from the API keys file.' },
      },
      schemas: componentSchemas(),
    },
  };
}
