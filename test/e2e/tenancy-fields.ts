/**
 * The id fields of the requests the tenancy check probes (tenancy-routes.test.ts), derived from the code: every
 * query parameter and JSON body field of every operation in the OpenAPI document the stack serves (built from
 * the zod schemas the routes validate with, shared/api/openapi.ts), and every argument of every MCP tool, that
 * is named like an id (`id`, `…Id`, `…Ids`, `…Token`, `…Arn`) or typed as a reference to something an owner
 * has (its JSON Schema has the pattern of a workflow, grant, job or client id, a credential secret, an
 * approver or an external engine); every header parameter there (Idempotency-Key, If-Match: each names an
 * earlier request or a version of the caller's); and the unsigned read hints the approval pages take beside
 * their signed link. Each must be probed with owner A's value by a row of ROUTES (or TOOLS), or be exempt with its reason
 * (FIELD_EXEMPTIONS): a new field of that kind without one fails the check.
 */

import { hintParams } from '../../shared/approvals-http/read-hints.ts';
import { EngineNameSchema } from '../../shared/external/definition.ts';
import type { Approval } from '../../shared/schemas/approval.ts';
import { CredentialRefSchema } from '../../shared/schemas/credentials.ts';
import { ApproverSchema } from '../../shared/schemas/gate.ts';
import { ClientIdSchema, GrantIdSchema, JobIdSchema } from '../../shared/schemas/job.ts';
import { WorkflowIdSchema } from '../../shared/schemas/workflow-record.ts';
import * as z from '../../shared/zod.ts';

type Json = Record<string, unknown>;

/** `id`, `workflowId`, `pendingApprovalIds`, `nextToken`, `topicArn`. */
const ID_NAME = /^(id|\w+Ids?|\w+Token|\w+Arn)$/;

/** The patterns of the reference types: a field with one refers to something of an owner's (or the deployment's). */
const REFERENCE_PATTERNS = new Map(
  Object.entries({
    workflow: WorkflowIdSchema,
    grant: GrantIdSchema,
    job: JobIdSchema,
    client: ClientIdSchema,
    secret: CredentialRefSchema.shape.secret,
    approver: ApproverSchema,
    engine: EngineNameSchema,
  }).map(([name, schema]) => [
    String((z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json).pattern),
    name,
  ]),
);

/** Why a field counts as an id: its name, or the reference type its pattern is. */
function idReason(name: string, schema: Json): string | undefined {
  const pattern = typeof schema.pattern === 'string' ? REFERENCE_PATTERNS.get(schema.pattern) : undefined;
  if (pattern) return `typed as a ${pattern} reference`;
  return ID_NAME.test(name) ? 'named like an id' : undefined;
}

/**
 * Every id field under `schema`, as a path: `credRefs.*.secret` (`*` a record's key), `approvers[]` (an
 * array's items), `nodes[].id` (a union's branches merged).
 */
export function idFields(schema: unknown, resolve: (ref: string) => unknown = () => undefined): string[] {
  const found = new Set<string>();
  const walk = (node: unknown, path: string, name: string, seen: Set<unknown>) => {
    let s = node as Json | undefined;
    while (s && typeof s.$ref === 'string') s = resolve(s.$ref) as Json | undefined;
    if (!s || typeof s !== 'object' || seen.has(s)) return;
    const inner = new Set(seen).add(s);
    // An array of ids is its items' field (`jobIds[]`), where a probe's `ref` goes.
    if (path && !s.items && idReason(name, s)) found.add(path);
    for (const key of ['anyOf', 'oneOf', 'allOf'])
      for (const branch of (s[key] as unknown[] | undefined) ?? []) walk(branch, path, name, inner);
    for (const [key, child] of Object.entries((s.properties as Json | undefined) ?? {}))
      walk(child, path ? `${path}.${key}` : key, key, inner);
    if (s.additionalProperties && typeof s.additionalProperties === 'object')
      walk(s.additionalProperties, `${path}.*`, name, inner);
    if (s.items && typeof s.items === 'object') walk(s.items, `${path}[]`, name, inner);
  };
  walk(schema, '', '', new Set());
  return [...found].sort();
}

/**
 * A request's id field: its route (`METHOD /path/:param`, as ROUTES keys it) and `query.x`, `header.X` or
 * `body.x.y`.
 */
export type IdField = { route: string; field: string };

/**
 * Every query parameter and JSON body field of the OpenAPI document's operations that is an id, and every
 * header parameter: each names an earlier request (Idempotency-Key) or a version (If-Match) of the caller's.
 */
export function requestIdFields(document: Json): IdField[] {
  const components = ((document.components as Json | undefined)?.schemas ?? {}) as Json;
  const resolve = (ref: string) => components[ref.replace('#/components/schemas/', '')];
  const fields: IdField[] = [];
  for (const [path, operations] of Object.entries(document.paths as Json))
    for (const [method, operation] of Object.entries(operations as Json)) {
      const op = operation as {
        parameters?: { in: string; name: string; schema?: Json }[];
        requestBody?: { content?: Record<string, { schema?: unknown }> };
      };
      const route = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;
      for (const parameter of op.parameters ?? [])
        if (parameter.in === 'query' && idReason(parameter.name, parameter.schema ?? {}))
          fields.push({ route, field: `query.${parameter.name}` });
        else if (parameter.in === 'header') fields.push({ route, field: `header.${parameter.name}` });
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body) for (const field of idFields(body, resolve)) fields.push({ route, field: `body.${field}` });
    }
  return fields;
}

/** Every query parameter of the OpenAPI document's operations, by route (`METHOD /path/:param`). */
export function requestQueryParameters(document: Json): { route: string; name: string }[] {
  return Object.entries(document.paths as Json).flatMap(([path, operations]) =>
    Object.entries(operations as Json).flatMap(([method, operation]) =>
      ((operation as { parameters?: { in: string; name: string }[] }).parameters ?? [])
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => ({
          route: `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`,
          name: parameter.name,
        })),
    ),
  );
}

/**
 * The approval pages' unsigned read hints (read-hints.ts): the query parameters a link carries for a workflow's
 * approval (`hintParams`), and the `run` its decision form's action carries (route-page.ts).
 */
export function approvalHintFields(): IdField[] {
  const approval = { runId: 'run_x', owner: 'o', workflowId: 'wf_xxxxxx' } as Approval;
  return [
    ...Object.keys(hintParams(approval)).map((name) => ({
      route: 'GET /approvals/:approvalId',
      field: `query.${name}`,
    })),
    { route: 'POST /approvals/:approvalId', field: 'query.run' },
  ];
}

/** Whether a concrete path (`credRefs.api.secret`) is the field pattern `credRefs.*.secret`. */
export const isField = (pattern: string, path: string): boolean =>
  new RegExp(
    `^${pattern
      .replace(/[.[\]]/g, (c) => `\\${c}`)
      .replace(/\\\[\\\]/g, '\\[\\d+\\]')
      .replaceAll('*', '[^.]+')}$`,
  ).test(path);
