/**
 * Graph run routes: the steps of a run, and the operator controls (shared/graph-run/operations.ts). Every
 * route is owner-fenced: a malformed, foreign or missing run id is the same 404; a run that cannot take the
 * operation now is a 409 `invalid_state` naming why.
 */
import { Hono } from 'hono';
import {
  GraphOperationError,
  type GraphOperationsDeps,
  pauseGraphRun,
  resumeGraphRun,
  retryGraphStep,
} from '../../graph-run/operations.ts';
import { withExecutionArn } from '../../runs/execution-arn.ts';
import type { Run } from '../../schemas/run.ts';
import { GENERATED_RUN_ID } from '../../schemas/run-id.ts';
import { validateQuery } from '../body.ts';
import { type ApiDeps, type ApiEnv, actorOf } from '../deps.ts';
import { notFound } from '../errors.ts';
import { StepsQuerySchema } from '../schemas.ts';
import { readStepsPage } from './steps-page.ts';

const STEP_ID = /^[a-z][a-z0-9_]{0,39}$/;

export function graphRunRoutes(deps: ApiDeps) {
  const app = new Hono<ApiEnv>();
  const ops = (): GraphOperationsDeps => {
    if (!deps.graph) throw new GraphOperationError('graph runs are not configured in this deployment');
    return { store: deps.store, executions: deps.executions, clock: deps.clock, ...deps.graph };
  };
  const respond = (run: Run | undefined) => {
    if (!run) throw notFound('run');
    return { run: withExecutionArn(deps.executions, run) };
  };

  app.get('/runs/:id/steps', async (c) => {
    const runId = c.req.param('id');
    if (!GENERATED_RUN_ID.test(runId)) throw notFound('run');
    // The owner is checked on every page, first: a foreign run costs the one read a missing one does, and is
    // not reported to the invocation's telemetry (owner-scoped read: observed-store.ts).
    const run = await deps.store.getOwnRun(c.get('identity').owner, runId);
    if (!run) throw notFound('run');
    return c.json(await readStepsPage(deps, runId, validateQuery(c, StepsQuerySchema)));
  });

  for (const [verb, operate] of [
    ['pause', pauseGraphRun],
    ['resume', resumeGraphRun],
  ] as const) {
    app.post(`/runs/:id/${verb}`, async (c) => {
      const identity = c.get('identity');
      const runId = c.req.param('id');
      if (!GENERATED_RUN_ID.test(runId)) throw notFound('run');
      return c.json(
        respond(await operate(ops(), { owner: identity.owner, runId, actor: actorOf(identity) })),
      );
    });
  }

  app.post('/runs/:id/steps/:stepId/retry', async (c) => {
    const identity = c.get('identity');
    const runId = c.req.param('id');
    const stepId = c.req.param('stepId');
    if (!GENERATED_RUN_ID.test(runId) || !STEP_ID.test(stepId)) throw notFound('run');
    const run = await retryGraphStep(ops(), {
      owner: identity.owner,
      runId,
      stepId,
      actor: actorOf(identity),
    });
    return c.json(respond(run));
  });

  return app;
}
