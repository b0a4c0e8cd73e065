/**
 * The API as one Hono app: web-standard `fetch(Request) → Response`. On AWS it is served by API Gateway
 * (HTTP API) through `hono/aws-lambda`, locally by `@hono/node-server`; both are wired by the caller. It may
 * also be mounted into another Hono app (`parent.route('/', api)`): its middleware, fallbacks and error
 * handler are scoped to its own paths (`/v1/*`, `/mcp`, `/local/events`), so they neither leak onto the parent's
 * routes nor depend on the parent's `notFound`.
 *
 * `createApiApp` mounts every part (the local stack, tests). On AWS two functions share the routes:
 * `createApiFunctionApp` (the Api function: everything but the workflow writes) and `createWorkflowWriteApp`
 * (workflow-write-app.ts); the same route code runs in both, only the entry points differ.
 */
import type { Hono } from 'hono';
import { apiRoutesPart } from './api-routes.ts';
import { composeApiApp } from './compose.ts';
import type { ApiDeps, ApiEnv } from './deps.ts';
import { workflowWritePart } from './workflow-write-app.ts';

/** Builds the whole API from its ports. */
export function createApiApp(deps: ApiDeps): Hono<ApiEnv> {
  return composeApiApp(deps.authenticator, [apiRoutesPart(deps), workflowWritePart(deps)]);
}
