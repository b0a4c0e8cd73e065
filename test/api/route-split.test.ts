/**
 * The API's routes split between two functions on AWS (docs/deploy.md, "Workflow writes"): every route of the
 * whole app (the local stack's) is served by exactly one of the Api function's app and the WorkflowWrite
 * function's app, the WorkflowWrite app serves exactly the routes infra gives it (WORKFLOW_WRITE_ROUTES), and
 * a wrong method on a workflow-write path is still a 405 naming the right one on the Api function. Route lists
 * come from the apps themselves.
 */
import type { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createApiFunctionApp } from '../../shared/api/api-function-app.ts';
import { createApiApp } from '../../shared/api/app.ts';
import type { ApiDeps, ApiEnv } from '../../shared/api/deps.ts';
import { localEventBus } from '../../shared/api/routes/local-events.ts';
import { WorkflowDefinitionBodySchema, WorkflowDefinitionShapeSchema } from '../../shared/api/schemas.ts';
import { createWorkflowWriteApp } from '../../shared/api/workflow-write-app.ts';
import { WORKFLOW_WRITE_ROUTES } from '../../shared/api/workflow-write-routes.ts';
import * as z from '../../shared/zod.ts';

// Building the apps reads no port: listing and fallback requests never reach the store.
const deps = {
  authenticator: { authenticate: () => ({ owner: 'alice', principal: 'alice' }) },
  local: { events: localEventBus },
  mcp: async () => new Response(null, { status: 204 }),
} as unknown as ApiDeps;

const whole = createApiApp(deps);
const api = createApiFunctionApp(deps);
const writes = createWorkflowWriteApp(deps);

/** `METHOD path` of every route handler of an app (middleware and fallbacks, method ALL, left out). */
const routesOf = (app: Hono<ApiEnv>) =>
  new Set(
    app.routes.filter((route) => route.method !== 'ALL').map((route) => `${route.method} ${route.path}`),
  );

describe('Routes split between the Api and WorkflowWrite functions', () => {
  it('serves every route of the whole app from exactly one of them', () => {
    const onApi = routesOf(api);
    const onWrites = routesOf(writes);
    const both = [...onApi].filter((route) => onWrites.has(route));
    const neither = [...routesOf(whole)].filter((route) => !onApi.has(route) && !onWrites.has(route));
    const extra = [...onApi, ...onWrites].filter((route) => !routesOf(whole).has(route));
    expect({ both, neither, extra }).toEqual({ both: [], neither: [], extra: [] });
  });

  it('gives the WorkflowWrite function exactly the routes infra sends it', () => {
    expect([...routesOf(writes)].sort()).toEqual(
      WORKFLOW_WRITE_ROUTES.map((route) => `${route.method} ${route.path}`).sort(),
    );
    expect(routesOf(writes).size).toBeGreaterThan(0);
  });

  it.each([
    ['GET', '/v1/workflows/wf_abc1234567/versions', 'POST'],
    ['DELETE', '/v1/workflows/wf_abc1234567/versions/2/publish', 'POST'],
    ['PATCH', '/v1/workflows/wf_abc1234567/versions/2', 'GET, HEAD, PUT'],
  ])(
    'answers %s %s on the Api function as the whole app does: 405, Allow %s',
    async (method, path, allow) => {
      for (const app of [whole, api]) {
        const reply = await app.request(path, { method });
        expect(reply.status).toBe(405);
        expect(reply.headers.get('allow')?.split(', ').sort()).toEqual(allow.split(', ').sort());
      }
    },
  );

  it('answers a path of neither with the same 404 on both functions', async () => {
    for (const app of [api, writes]) {
      const reply = await app.request('/v1/nothing');
      expect(reply.status).toBe(404);
      expect(await reply.json()).toEqual({ error: { code: 'not_found', message: 'route not found' } });
    }
  });

  it('documents the definition body with the JSON Schema the write routes validate with', () => {
    for (const io of ['input', 'output'] as const) {
      const json = (schema: z.ZodMiniType) =>
        z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
      expect(json(WorkflowDefinitionShapeSchema)).toEqual(json(WorkflowDefinitionBodySchema));
    }
  });
});
