/**
 * The API as one Hono app: web-standard `fetch(Request) → Response`. On AWS it is served by API Gateway
 * (HTTP API) through `hono/aws-lambda`, locally by `@hono/node-server`; both are wired by the caller. It may
 * also be mounted into another Hono app (`parent.route('/', api)`): its middleware, fallbacks and error
 * handler are scoped to its own paths (`/v1/*`, `/mcp`, `/local/events`), so they neither leak onto the parent's
 * routes nor depend on the parent's `notFound`.
 */
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ownerPathsOnly, requireIdentity } from './auth.ts';
import { type ApiDeps, type ApiEnv, withJobDefaults } from './deps.ts';
import { errorBody, handleError } from './errors.ts';
import { openApiDocument } from './openapi.ts';
import { approvalRoutes } from './routes/approvals.ts';
import { auditRoutes } from './routes/audit.ts';
import { eventRoutes } from './routes/events.ts';
import { grantRoutes } from './routes/grants.ts';
import { graphRunRoutes } from './routes/graph-runs.ts';
import { humanTaskRoutes } from './routes/human-tasks.ts';
import { jobRoutes } from './routes/jobs.ts';
import { localEventRoutes } from './routes/local-events.ts';
import { mountMcp } from './routes/mcp.ts';
import { meRoutes } from './routes/me.ts';
import { runRoutes } from './routes/runs.ts';
import { workflowSpendRoutes } from './routes/workflow-spend.ts';
import { workflowRoutes } from './routes/workflows.ts';
import { MAX_BODY_BYTES } from './schemas.ts';

/** Builds the API from its ports. */
export function createApiApp(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.onError(handleError);
  const limit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) =>
      c.json(errorBody('payload_too_large', `the body is larger than ${MAX_BODY_BYTES} bytes`), 413),
  });
  const authenticated = requireIdentity(deps.authenticator);

  // Built on the first request for it, not with the app: ~25 ms of CPU that every cold start would pay.
  let document: ReturnType<typeof openApiDocument> | undefined;
  app.get('/v1/openapi.json', (c) => {
    document ??= openApiDocument();
    return c.json(document);
  });

  app.use('/v1/*', limit, authenticated, ownerPathsOnly());
  app.route('/v1/workflows', workflowSpendRoutes(deps));
  app.route('/v1/workflows', workflowRoutes(deps));
  app.route('/v1', runRoutes(deps));
  app.route('/v1', graphRunRoutes(deps));
  app.route('/v1/approvals', approvalRoutes(deps));
  app.route('/v1/human-tasks', humanTaskRoutes(deps));
  app.route('/v1/events', eventRoutes(deps));
  app.route('/v1/audit', auditRoutes(deps));
  app.route('/v1/me', meRoutes(deps));
  // Delegated jobs (docs/jobs.md): the deployment's models, or the defaults.
  const withJobs = withJobDefaults(deps);
  app.route('/v1/jobs', jobRoutes(withJobs));
  app.route('/v1/grants', grantRoutes(withJobs));
  // The same job operations as an MCP server (Streamable HTTP, stateless), for the same client identities.
  if (deps.mcp) mountMcp(app, withJobs, deps.mcp, [limit, authenticated]);
  if (deps.local?.events) {
    app.use('/local/events', limit, authenticated, ownerPathsOnly());
    app.route('/local', localEventRoutes(deps));
  }

  // Fallbacks, registered last: a path that exists with other methods is a 405 with Allow, anything else a 404.
  const patterns = app.routes
    .filter((route) => route.method !== 'ALL')
    .map((route) => ({
      method: route.method,
      regex: new RegExp(
        `^${route.path.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll(/:[A-Za-z]+/g, '[^/]+')}$`,
      ),
    }));
  const fallback = (c: Context) => {
    const allowed = [...new Set(patterns.filter((p) => p.regex.test(c.req.path)).map((p) => p.method))];
    if (allowed.length > 0) {
      if (allowed.includes('GET')) allowed.push('HEAD');
      c.header('Allow', allowed.join(', '));
      return c.json(errorBody('method_not_allowed', `use ${allowed.join(', ')} on this path`), 405);
    }
    return c.json(errorBody('not_found', 'route not found'), 404);
  };
  app.all('/v1/*', fallback);
  if (deps.local?.events) app.all('/local/events', fallback);
  app.notFound(fallback);
  return app;
}
