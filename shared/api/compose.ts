/**
 * The API's shell, shared by every app that serves part of it: the error handler, the body limit and the
 * authenticator in front of `/v1/*`, and the fallbacks (a path that exists with other methods is a 405 with
 * Allow, anything else a 404). Parts add routes; one part's routes are the same code in every app that
 * mounts it. On AWS the Api and WorkflowWrite functions each mount their part (`servedElsewhere` lists the
 * routes the other function answers, so a wrong method on them is still a 405); the local stack mounts all.
 */
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ownerPathsOnly, requireIdentity } from './auth.ts';
import { MAX_BODY_BYTES } from './body-limits.ts';
import type { ApiEnv, Authenticator } from './deps.ts';
import { errorBody, handleError } from './errors.ts';
import { type RoutePattern, routeMatcher } from './workflow-write-routes.ts';

/** The body limit and the authenticator, for parts that guard paths outside `/v1` (`/mcp`, `/local`). */
export type ApiGuards = { limit: MiddlewareHandler<ApiEnv>; authenticated: MiddlewareHandler<ApiEnv> };

export type ApiPart = {
  /** Routes answered before authentication (registered ahead of the `/v1/*` guards). */
  open?(app: Hono<ApiEnv>): void;
  /** Routes behind the guards. */
  mount(app: Hono<ApiEnv>, guards: ApiGuards): void;
  /** Paths outside `/v1` whose unmatched methods get the fallback too. */
  fallbackPaths?: readonly string[];
};

export function composeApiApp(
  authenticator: Authenticator,
  parts: readonly ApiPart[],
  servedElsewhere: readonly RoutePattern[] = [],
): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.onError(handleError);
  const guards: ApiGuards = {
    limit: bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        c.json(errorBody('payload_too_large', `the body is larger than ${MAX_BODY_BYTES} bytes`), 413),
    }),
    authenticated: requireIdentity(authenticator),
  };
  for (const part of parts) part.open?.(app);
  app.use('/v1/*', guards.limit, guards.authenticated, ownerPathsOnly());
  for (const part of parts) part.mount(app, guards);

  // Fallbacks, registered last: a path that exists with other methods is a 405 with Allow, anything else a 404.
  const patterns = [...app.routes.filter((route) => route.method !== 'ALL'), ...servedElsewhere].map(
    routeMatcher,
  );
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
  for (const path of parts.flatMap((part) => part.fallbackPaths ?? [])) app.all(path, fallback);
  app.notFound(fallback);
  return app;
}
