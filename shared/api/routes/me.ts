/**
 * `GET /v1/me`: the caller's owner id, principal and owner key, from authentication only. On AWS the owner is
 * derived from the IAM principal (or a JWT claim), so an operator learns here where their credential secrets
 * must live (`wf/<ownerKey>/…`, tagged `wf-owner=<ownerKey>`) before creating them.
 */
import { Hono } from 'hono';
import { ownerKey, ownerSecretPrefix } from '../../credentials/owner-key.ts';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { MeResponseSchema } from '../schemas.ts';

export function meRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/', (c) => {
    const { owner, principal } = c.get('identity');
    return c.json(
      MeResponseSchema.parse({
        owner,
        principal,
        ownerKey: ownerKey(owner),
        secretPrefix: ownerSecretPrefix(deps.credentialNamePrefix ?? 'wf/', owner),
      }),
    );
  });
  return app;
}
