import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../shared/api/index.ts';
import { OPERATIONS } from '../../shared/api/openapi-operations.ts';
import { OPENAPI_PATH } from '../../shared/api/write-openapi.ts';
import { apiHarness } from './helpers.ts';

const h = apiHarness();
const document = openApiDocument() as {
  openapi: string;
  paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, { schema: { $ref: string } }> } }>
  >;
  components: { schemas: Record<string, unknown> };
};

describe('OpenAPI document', () => {
  it('is committed up to date in docs/openapi.json (regenerate: npx node shared/api/write-openapi.ts)', () => {
    expect(JSON.parse(readFileSync(OPENAPI_PATH, 'utf8'))).toEqual(document);
  });

  it('is served without authentication at /v1/openapi.json', async () => {
    const reply = await h.anonymous.get('/v1/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(document);
    expect(reply.body.openapi).toBe('3.1.0');
  });

  it('lists 403 forbidden and 503 (throttled, unavailable) on every authenticated route', () => {
    const responses = (path: string, method: string) =>
      Object.keys(((document.paths[path]?.[method] ?? {}) as { responses?: object }).responses ?? {});
    for (const op of OPERATIONS.filter((o) => o.authenticated !== false))
      expect(responses(op.path, op.method), `${op.method} ${op.path}`).toEqual(
        expect.arrayContaining(['403', '503']),
      );
    expect(responses('/v1/openapi.json', 'get')).not.toContain('503');
  });

  // What the routes answer (shared/api/errors.ts, docs/api.md): a start's own refusals, and a delete fenced on
  // the head and followed by a trigger sync like enable and disable.
  it.each([
    ['post', '/v1/workflows/{id}/runs', '409', 'workflow_not_runnable'],
    ['post', '/v1/workflows/{id}/runs', '502', 'run_not_started'],
    ['post', '/v1/workflows/{id}/runs', '503', 'run_start_pending'],
    ['delete', '/v1/workflows/{id}', '409', 'concurrent_update'],
    ['delete', '/v1/workflows/{id}', '502', 'trigger_sync_failed'],
  ])('lists on %s %s the %s the route answers (%s)', (method, path, status, code) => {
    const operation = document.paths[path]?.[method] as
      | { responses?: Record<string, { description: string }> }
      | undefined;
    expect(operation?.responses?.[status]?.description).toContain(code);
  });

  it('documents exactly the routes the app serves', () => {
    const served = h.app.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => `${route.method} ${route.path.replaceAll(/:([A-Za-z]+)/g, '{$1}')}`)
      .sort();
    const documented = OPERATIONS.map((op) => `${op.method.toUpperCase()} ${op.path}`).sort();
    expect(served).toEqual(documented);
  });

  it('resolves every $ref to a component schema', () => {
    const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) {
      const name = ref.slice('"$ref":"#/components/schemas/'.length, -1);
      expect(ref.startsWith('"$ref":"#/components/schemas/')).toBe(true);
      expect(document.components.schemas[name], ref).toBeDefined();
    }
  });

  it('takes the workflow body from the workflow definition schema, in JSON and YAML', () => {
    const body = document.paths['/v1/workflows']?.post?.requestBody;
    expect(Object.keys(body?.content ?? {})).toEqual(['application/json', 'application/yaml', 'text/yaml']);
    // One variant per kind of workflow: agent (kind absent or 'agent'), graph and external.
    const kinds = (document.components.schemas.WorkflowDefinition as { oneOf: { required: string[] }[] })
      .oneOf;
    expect(kinds.map((kind) => kind.required)).toEqual([
      expect.arrayContaining(['name', 'model', 'prompt', 'allowedActions', 'trigger', 'budget']),
      expect.arrayContaining(['kind', 'name', 'nodes', 'edges', 'trigger', 'budget']),
      expect.arrayContaining(['kind', 'name', 'engine', 'trigger', 'budget']),
    ]);
    const approval = document.components.schemas.Approval as { properties: Record<string, unknown> };
    expect(Object.keys(approval.properties)).not.toContain('taskToken');
    expect(Object.keys(approval.properties)).not.toContain('fence');
  });
});
