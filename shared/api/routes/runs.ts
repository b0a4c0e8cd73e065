/** Run routes: start on demand (idempotent by Idempotency-Key), get, list, transcript and audit (paged), cancel. */
import { Hono } from 'hono';
import { cancelRun, idempotencyFor, startRun, withExecutionArn } from '../../runs/index.ts';
import { receiptOf } from '../../runs/receipts.ts';
import type { Run, TriggerProvenance } from '../../schemas/run.ts';
import { GENERATED_RUN_ID } from '../../schemas/run-id.ts';
import { WorkflowIdSchema } from '../../schemas/workflow-record.ts';
import { readJsonBody, validate, validateHeader, validateQuery } from '../body.ts';
import { type ApiDeps, type ApiEnv, actorOf } from '../deps.ts';
import { notFound } from '../errors.ts';
import { checkedToken, tokenShapes } from '../pagination.ts';
import {
  AuditQuerySchema,
  IdempotencyKeySchema,
  ListReceiptsQuerySchema,
  ListRunsQuerySchema,
  StartRunBodySchema,
  TranscriptQuerySchema,
} from '../schemas.ts';
import { readRunAuditPage } from './run-audit.ts';
import { readTranscriptPage } from './transcript.ts';

/**
 * One of `owner`'s runs; a malformed, foreign or missing id is the same 404. Read owner-scoped, so a foreign
 * run reaches no log key or trace annotation of this invocation (observed-store.ts).
 */
async function loadRun(deps: ApiDeps, owner: string, runId: string): Promise<Run> {
  if (!GENERATED_RUN_ID.test(runId)) throw notFound('run');
  const run = await deps.store.getOwnRun(owner, runId);
  if (!run) throw notFound('run');
  return run;
}

export function runRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post('/workflows/:id/runs', async (c) => {
    const identity = c.get('identity');
    // Only an empty body means "no input"; a JSON `null` is a body, and not an object.
    const raw = await readJsonBody(c, { optional: true });
    const body = validate(StartRunBodySchema, raw === undefined ? {} : raw, 'invalid run request');
    const key = validateHeader(c, 'Idempotency-Key', IdempotencyKeySchema);
    const workflowId = c.req.param('id');
    if (!WorkflowIdSchema.safeParse(workflowId).success) throw notFound('workflow');
    const trigger: TriggerProvenance = {
      type: 'on_demand',
      caller: identity.principal,
      ...(key !== undefined ? { idempotencyKey: key } : {}),
    };
    const idempotency = idempotencyFor(trigger, workflowId, key);
    const { run, created } = await startRun(deps, {
      owner: identity.owner,
      workflowId,
      trigger,
      input: body.input,
      ...(idempotency ? { idempotency } : {}),
      actor: actorOf(identity),
    });
    // A repeated identical start is the same run: 200 instead of 201.
    const shown = withExecutionArn(deps.executions, run);
    return created
      ? c.json({ run: shown }, 201, { Location: `/v1/runs/${run.runId}` })
      : c.json({ run: shown }, 200);
  });

  app.get('/runs', async (c) => {
    const { owner } = c.get('identity');
    const query = validateQuery(c, ListRunsQuerySchema);
    const shape = query.workflowId
      ? tokenShapes.runsByWorkflow(owner, query.workflowId)
      : tokenShapes.runsByOwner(owner);
    const nextToken = checkedToken(query.nextToken, shape);
    const page = await deps.store.listRuns({
      owner,
      ...(query.workflowId !== undefined ? { workflowId: query.workflowId } : {}),
      ...(query.status !== undefined ? { status: query.status } : {}),
      ...(query.limit !== undefined ? { limit: query.limit } : {}),
      ...(nextToken !== undefined ? { nextToken } : {}),
    });
    return c.json({ ...page, items: page.items.map((run) => withExecutionArn(deps.executions, run)) });
  });

  app.get('/runs/:id', async (c) => {
    const run = await loadRun(deps, c.get('identity').owner, c.req.param('id'));
    return c.json({ run: withExecutionArn(deps.executions, run) });
  });

  app.get('/runs/:id/transcript', async (c) => {
    const run = await loadRun(deps, c.get('identity').owner, c.req.param('id'));
    return c.json(await readTranscriptPage(deps, run.runId, validateQuery(c, TranscriptQuerySchema)));
  });

  app.get('/runs/:id/audit', async (c) => {
    const { owner } = c.get('identity');
    const run = await loadRun(deps, owner, c.req.param('id'));
    const { nextToken } = validateQuery(c, AuditQuerySchema);
    return c.json(await readRunAuditPage(deps, run, nextToken, () => loadRun(deps, owner, run.runId)));
  });

  app.get('/runs/:id/receipts', async (c) => {
    const run = await loadRun(deps, c.get('identity').owner, c.req.param('id'));
    const query = validateQuery(c, ListReceiptsQuerySchema);
    const nextToken = checkedToken(query.nextToken, tokenShapes.receipts(run.runId));
    const page = await deps.store.listLedgerPage({
      runId: run.runId,
      ...(query.limit !== undefined ? { limit: query.limit } : {}),
      ...(nextToken !== undefined ? { nextToken } : {}),
    });
    return c.json({
      runId: run.runId,
      items: page.items.map(receiptOf),
      ...(page.nextToken ? { nextToken: page.nextToken } : {}),
    });
  });

  app.post('/runs/:id/cancel', async (c) => {
    const identity = c.get('identity');
    const runId = c.req.param('id');
    if (!GENERATED_RUN_ID.test(runId)) throw notFound('run');
    const run = await cancelRun(deps, { owner: identity.owner, runId, actor: actorOf(identity) });
    if (!run) throw notFound('run');
    return c.json({ run: withExecutionArn(deps.executions, run) });
  });

  return app;
}
