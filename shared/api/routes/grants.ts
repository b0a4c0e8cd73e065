/**
 * Delegation grants for owners (docs/jobs.md): create, read, history, jobs, narrow, widen, revoke. Every change is
 * a new version in the owner's audit chain, authored by the caller's principal.
 */
import { Hono } from 'hono';
import {
  ChangeGrantSchema,
  ClientIdSchema,
  CreateGrantSchema,
  changeGrant,
  createGrant,
  getGrant,
  getGrantHistory,
  ListJobsSchema,
  listGrantJobs,
  listGrants,
  promoteQueued,
  revokeGrant,
} from '../../jobs/index.ts';
import { readJsonBody, validate, validateQuery } from '../body.ts';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { jobsDepsOf } from './jobs.ts';

const clientIdOf = (value: string | undefined): string => {
  if (!ClientIdSchema.safeParse(value).success) throw new ApiError(404, 'not_found', 'grant not found');
  return value!;
};

export function grantRoutes(deps: ApiDeps & { jobs: NonNullable<ApiDeps['jobs']> }): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const grantDeps = {
    store: deps.store,
    clock: deps.clock,
    ids: deps.ids,
    credentialNamePrefix: deps.credentialNamePrefix,
    // The approvers a grant's gates name must be declared for its owner, as a workflow's (approver-reach.ts).
    approverReach: deps.approverReach,
  };
  const actorOf = (c: { get(key: 'identity'): { owner: string; principal: string } }) => {
    const { owner, principal } = c.get('identity');
    return { owner, principal };
  };

  app.post('/', async (c) => {
    const body = validate(CreateGrantSchema, await readJsonBody(c), 'invalid grant');
    const grant = await createGrant(grantDeps, actorOf(c), body);
    return c.json({ grant }, 201, { Location: `/v1/grants/${encodeURIComponent(grant.clientId)}` });
  });
  app.get('/', async (c) => c.json({ grants: await listGrants(grantDeps, actorOf(c)) }));
  app.get('/:clientId', async (c) =>
    c.json({ grant: await getGrant(grantDeps, actorOf(c), clientIdOf(c.req.param('clientId'))) }),
  );
  app.get('/:clientId/history', async (c) =>
    c.json({ versions: await getGrantHistory(grantDeps, actorOf(c), clientIdOf(c.req.param('clientId'))) }),
  );
  // The jobs the client ran under this grant, for the owner (the console's jobs page).
  app.get('/:clientId/jobs', async (c) => {
    const clientId = clientIdOf(c.req.param('clientId'));
    const query = validateQuery(c, ListJobsSchema);
    return c.json(await listGrantJobs(jobsDepsOf(deps), actorOf(c), clientId, query));
  });
  for (const direction of ['narrow', 'widen'] as const) {
    app.post(`/:clientId/${direction}`, async (c) => {
      const body = validate(ChangeGrantSchema, await readJsonBody(c), 'invalid grant change');
      const clientId = clientIdOf(c.req.param('clientId'));
      const grant = await changeGrant(grantDeps, actorOf(c), clientId, direction, body);
      return c.json({ grant });
    });
  }
  app.post('/:clientId/revoke', async (c) => {
    const grant = await revokeGrant(grantDeps, actorOf(c), clientIdOf(c.req.param('clientId')));
    // Queued jobs of a revoked grant never start: end them now rather than at the next sweep.
    await promoteQueued(jobsDepsOf(deps), { owner: actorOf(c).owner, ...grant });
    return c.json({ grant });
  });
  return app;
}
