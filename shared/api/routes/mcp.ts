/**
 * `/mcp`: the delegated-jobs operations as an MCP server (docs/jobs.md, "MCP"), for the same client
 * identities as `/v1/jobs` (an API key locally, a JWT client on AWS). The server itself (and the MCP SDK) is
 * the `McpHandler` port, so only the apps that serve `/mcp` bundle it: the local stack and functions/mcp.ts.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import type { ApiDeps, ApiEnv, McpHandler } from '../deps.ts';
import { errorBody } from '../errors.ts';
import { jobCallerOf, jobsDepsOf } from './jobs.ts';

/** What `/mcp` needs of the API's deps: the job operations' ports and the deployment's models. */
export type McpDeps = Pick<ApiDeps, 'store' | 'executions' | 'clock' | 'ids'> & {
  jobs: NonNullable<ApiDeps['jobs']>;
};

export function mcpRoutes(deps: McpDeps, handle: McpHandler): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const jobs = jobsDepsOf(deps);
  // The caller comes from the verified identity (an owner's own credential is refused, as on /v1/jobs).
  app.post('/', (c) => handle(c.req.raw, jobs, jobCallerOf(c.get('identity'))));
  // Stateless with JSON responses: no SSE stream to open (GET) and no session to end (DELETE).
  app.on(['GET', 'DELETE'], '/', (c) => {
    c.header('Allow', 'POST');
    return c.json(errorBody('method_not_allowed', 'use POST on this path (stateless MCP server)'), 405);
  });
  return app;
}

/** Mounts `/mcp` on `app` behind the body limit and the authenticator the job routes use. */
export function mountMcp(
  app: Hono<ApiEnv>,
  deps: McpDeps,
  handle: McpHandler,
  guards: MiddlewareHandler<ApiEnv>[],
): void {
  app.use('/mcp', ...guards);
  app.route('/mcp', mcpRoutes(deps, handle));
}
