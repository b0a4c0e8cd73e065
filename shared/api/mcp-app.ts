/**
 * The MCP function's app (functions/mcp.ts): only `/mcp`, with the API's authenticator, body limit and error
 * handler, so the jobs MCP server runs in its own Lambda and the Api bundle stays free of the MCP SDK.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requireIdentity } from './auth.ts';
import { MAX_BODY_BYTES } from './body-limits.ts';
import { type ApiDeps, type ApiEnv, type McpHandler, withJobDefaults } from './deps.ts';
import { errorBody, handleError } from './errors.ts';
import { mountMcp } from './routes/mcp.ts';

/** The deps of the MCP app: the job operations' ports, the authenticator and the MCP handler. */
export type McpAppDeps = Pick<
  ApiDeps,
  'store' | 'executions' | 'clock' | 'ids' | 'authenticator' | 'jobs'
> & {
  mcp: McpHandler;
};

export function createMcpApp(deps: McpAppDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.onError(handleError);
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) =>
      c.json(errorBody('payload_too_large', `the body is larger than ${MAX_BODY_BYTES} bytes`), 413),
  });
  mountMcp(app, withJobDefaults(deps), deps.mcp, [limit, requireIdentity(deps.authenticator)]);
  app.notFound((c) => c.json(errorBody('not_found', 'route not found'), 404));
  return app;
}
