/**
 * Every `/v1` route except those that take a workflow definition (workflow-write-app.ts), the OpenAPI document
 * (public locally; behind the authorizer on AWS), plus `/mcp` and the local stack's `/local/events` where
 * configured: the Api function's part of the API.
 */
import { ownerPathsOnly } from './auth.ts';
import type { ApiPart } from './compose.ts';
import { type ApiDeps, withJobDefaults } from './deps.ts';
import { openApiDocument } from './openapi.ts';
import { approvalRoutes } from './routes/approvals.ts';
import { auditRoutes } from './routes/audit.ts';
import { eventRoutes } from './routes/events.ts';
import { grantRoutes } from './routes/grants.ts';
import { graphRunRoutes } from './routes/graph-runs.ts';
import { humanTaskRoutes } from './routes/human-tasks.ts';
import { jobRoutes } from './routes/jobs.ts';
import { mountMcp } from './routes/mcp.ts';
import { meRoutes } from './routes/me.ts';
import { runRoutes } from './routes/runs.ts';
import { workflowSpendRoutes } from './routes/workflow-spend.ts';
import { workflowRoutes } from './routes/workflows.ts';

export function apiRoutesPart(deps: ApiDeps): ApiPart {
  return {
    open(app) {
      // Built on the first request for it, not with the app: ~25 ms of CPU that every cold start would pay.
      let document: ReturnType<typeof openApiDocument> | undefined;
      app.get('/v1/openapi.json', (c) => {
        document ??= openApiDocument();
        return c.json(document);
      });
    },
    mount(app, { limit, authenticated }) {
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
        app.route('/local', deps.local.events.routes(deps));
      }
    },
    fallbackPaths: deps.local?.events ? ['/local/events'] : [],
  };
}
