/**
 * `/mcp`: the delegated-jobs operations as an MCP server (docs/jobs.md, "MCP"), for the same client
 * identities as `/v1/jobs` (an API key locally, a JWT client on AWS). The server module and the MCP SDK are
 * imported on the first request, so an Api cold start that serves no MCP does not load them.
 */
import { Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { errorBody } from '../errors.ts';
import { jobCallerOf, jobsDepsOf } from './jobs.ts';

export function mcpRoutes(deps: ApiDeps & { jobs: NonNullable<ApiDeps['jobs']> }): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const jobs = jobsDepsOf(deps);
  app.post('/', async (c) => {
    // The caller comes from the verified identity (an owner's own credential is refused, as on /v1/jobs).
    const caller = jobCallerOf(c.get('identity'));
    const { handleMcpRequest } = await import('../../mcp/server.ts');
    return handleMcpRequest(c.req.raw, jobs, caller);
  });
  // Stateless with JSON responses: no SSE stream to open (GET) and no session to end (DELETE).
  app.on(['GET', 'DELETE'], '/', (c) => {
    c.header('Allow', 'POST');
    return c.json(errorBody('method_not_allowed', 'use POST on this path (stateless MCP server)'), 405);
  });
  return app;
}
