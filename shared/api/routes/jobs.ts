/**
 * Delegated jobs for clients (docs/jobs.md): submit, poll, list, cancel. The routes translate HTTP to the
 * transport-neutral operations of shared/jobs/service.ts (which the MCP tools use too) and nothing more.
 */
import { Hono } from 'hono';
import {
  cancelJob,
  getJob,
  type JobCaller,
  type JobsDeps,
  ListJobsSchema,
  listJobs,
  SubmitJobSchema,
  submitJobOutcome,
} from '../../jobs/index.ts';
import { readJsonBody, validate, validateHeader, validateQuery } from '../body.ts';
import type { ApiContext, ApiDeps, ApiEnv, Identity } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { IdempotencyKeySchema } from '../schemas.ts';

/** The job operations' caller: only a client identity; an owner's own credential is not a client. */
export function jobCallerOf(identity: Identity): JobCaller {
  if (identity.client === undefined)
    throw new ApiError(
      403,
      'forbidden',
      'the job routes are for delegated clients: grant one with `wf grant create`',
    );
  return {
    clientId: identity.client,
    // '' when the credential proves no owner: no grant applies (not_granted).
    owner: identity.owner,
    principal: identity.principal,
  };
}

/** The operations' dependencies from the API's. */
export const jobsDepsOf = (
  deps: Pick<ApiDeps, 'store' | 'executions' | 'clock' | 'ids'> & { jobs: NonNullable<ApiDeps['jobs']> },
): JobsDeps => ({
  store: deps.store,
  executions: deps.executions,
  clock: deps.clock,
  ids: deps.ids,
  models: deps.jobs.models,
  ...(deps.jobs.retry ? { retry: deps.jobs.retry } : {}),
});

export function jobRoutes(deps: ApiDeps & { jobs: NonNullable<ApiDeps['jobs']> }): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const jobs = jobsDepsOf(deps);

  app.post('/', async (c) => {
    const caller = jobCallerOf(c.get('identity'));
    const body = validate(SubmitJobSchema, await readJsonBody(c), 'invalid job request');
    const idempotencyKey = validateHeader(c, 'Idempotency-Key', IdempotencyKeySchema);
    const { result, admitted } = await submitJobOutcome(jobs, caller, body, { idempotencyKey });
    if ('dryRun' in result) return c.json(result, 200);
    // A job this request admitted is 202 Accepted (it runs later), with or without an Idempotency-Key; a
    // coalesced one or a repeated key's is the existing job, 200.
    return c.json(result, admitted ? 202 : 200, { Location: `/v1/jobs/${result.job.jobId}` });
  });

  app.get('/', async (c) => {
    const caller = jobCallerOf(c.get('identity'));
    return c.json(await listJobs(jobs, caller, validateQuery(c, ListJobsSchema)));
  });

  app.get('/:id', async (c) => {
    const caller = jobCallerOf(c.get('identity'));
    return c.json({ job: await getJob(jobs, caller, c.req.param('id')) });
  });

  const cancel = async (c: ApiContext) => {
    const caller = jobCallerOf(c.get('identity'));
    return c.json(await cancelJob(jobs, caller, c.req.param('id') ?? ''));
  };
  app.delete('/:id', cancel);
  app.post('/:id/cancel', cancel);
  return app;
}
