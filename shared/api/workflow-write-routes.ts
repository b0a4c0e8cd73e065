/**
 * The routes the WorkflowWrite function serves on AWS (functions/workflow-write.ts): every route that parses a
 * workflow definition (JSON or YAML) or runs its save-time validation (zod, Ajv for the JSON Schemas of graph
 * definitions, JSONata for graph expressions). The Api function serves every other `/v1` route and bundles
 * none of that (docs/deploy.md,
 * "Workflow writes"). Hono paths; infra turns them into API Gateway routes and the Api function's 405
 * fallback counts them as existing. test/api/route-split.test.ts fails if this list and the apps disagree.
 */
export type RoutePattern = { readonly method: string; readonly path: string };

export const WORKFLOW_WRITE_ROUTES: readonly RoutePattern[] = [
  { method: 'POST', path: '/v1/workflows' },
  { method: 'POST', path: '/v1/workflows/:id/versions' },
  { method: 'PUT', path: '/v1/workflows/:id/versions/:version' },
  { method: 'POST', path: '/v1/workflows/:id/versions/:version/publish' },
];

/** A Hono path as an API Gateway route path: `/v1/workflows/:id` → `/v1/workflows/{id}`. */
export const gatewayPath = (path: string): string => path.replaceAll(/:([A-Za-z]+)/g, '{$1}');

/** A Hono route as a matcher of request paths: its literal parts escaped, each `:param` one path segment. */
export const routeMatcher = (route: RoutePattern): { method: string; regex: RegExp } => ({
  method: route.method,
  regex: new RegExp(
    `^${route.path.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll(/:[A-Za-z]+/g, '[^/]+')}$`,
  ),
});

const WRITE_ROUTE_PATTERNS = WORKFLOW_WRITE_ROUTES.map(routeMatcher);

/** Whether WorkflowWrite serves this request on AWS (the local stack names the function it stands in for). */
export const servedByWorkflowWrite = (method: string, path: string): boolean =>
  WRITE_ROUTE_PATTERNS.some((route) => route.method === method && route.regex.test(path));
