/**
 * `GET /v1/audit`: the caller's owner-level chains, each verified, a page at a time (owner-audit-page.ts): the
 * workflow-change chain, the anchor chain (one link per finished run) and the signed heads that pin both.
 * Signatures are checked with the deployment's verifier (a public key, never one read from the table); without
 * one, the signed heads fail verification.
 */
import { Hono } from 'hono';
import { validateQuery } from '../body.ts';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { AuditQuerySchema } from '../schemas.ts';
import { ownerAuditPage } from './owner-audit-page.ts';

export function auditRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/', async (c) => {
    const { nextToken } = validateQuery(c, AuditQuerySchema);
    return c.json(await ownerAuditPage(deps, c.get('identity').owner, nextToken, deps.auditVerifier));
  });
  return app;
}
