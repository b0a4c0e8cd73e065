/**
 * The Api function's app (functions/api.ts): every route but the workflow writes, which API Gateway sends to
 * the WorkflowWrite function. Those routes still count for the 405 fallback: `GET /v1/workflows/{id}/versions`
 * answers 405 with `Allow: POST` here, as it does in the whole app.
 */
import type { Hono } from 'hono';
import { apiRoutesPart } from './api-routes.ts';
import { composeApiApp } from './compose.ts';
import type { ApiDeps, ApiEnv } from './deps.ts';
import { WORKFLOW_WRITE_ROUTES } from './workflow-write-routes.ts';

export function createApiFunctionApp(deps: ApiDeps): Hono<ApiEnv> {
  return composeApiApp(deps.authenticator, [apiRoutesPart(deps)], WORKFLOW_WRITE_ROUTES);
}
