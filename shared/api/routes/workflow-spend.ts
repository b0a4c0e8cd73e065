/** `GET /v1/workflows/:id/spend`: today's (UTC) spend against the per-day ceiling, as the budget counts it. */
import { Hono } from 'hono';
import type { WorkflowHead, WorkflowVersion } from '../../schemas/workflow-record.ts';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { loadHead, loadVersion } from '../workflow-access.ts';

/** Today's spend of `head` against its `version`'s per-day ceiling (also each item of a workflow summary). */
export async function daySpendOf(deps: ApiDeps, head: WorkflowHead, version: WorkflowVersion) {
  // The budget's day: the clock's UTC day, as `utcDay` in shared/core/engine.ts (not imported: the turn engine).
  const day = new Date(deps.clock.nowMs()).toISOString().slice(0, 10);
  const spend = await deps.store.getDaySpendDetail(head.owner, head.workflowId, day);
  const budget = (version.definition as { budget?: { maxUsdPerDay?: number } }).budget;
  return {
    workflowId: head.workflowId,
    day,
    totalUsd: spend.totalUsd,
    reservedUsd: spend.reservedUsd,
    ceilingUsd: budget?.maxUsdPerDay ?? null,
  };
}

export function workflowSpendRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/:id/spend', async (c) => {
    const head = await loadHead(deps, c.get('identity').owner, c.req.param('id'));
    return c.json(await daySpendOf(deps, head, await loadVersion(deps, head, head.latestVersion)));
  });
  return app;
}
