/** Run routes: start on demand (idempotent by Idempotency-Key), get, list, transcript (paged), audit, cancel. */
import { Hono } from 'hono';
import { AuditEntrySchema, verifyAuditChain } from '../../audit/index.ts';
import { ItemCorruptError } from '../../core/store-errors.ts';
import { type TranscriptBindingFailure, verifyTranscriptBinding } from '../../core/transcript-binding.ts';
import { cancelRun, idempotencyFor, startRun, withExecutionArn } from '../../runs/index.ts';
import { receiptOf } from '../../runs/receipts.ts';
import type { Run, TriggerProvenance } from '../../schemas/run.ts';
import { WorkflowIdSchema } from '../../schemas/workflow-record.ts';
import { readJsonBody, validate, validateHeader, validateQuery } from '../body.ts';
import { type ApiDeps, type ApiEnv, actorOf } from '../deps.ts';
import { notFound } from '../errors.ts';
import { checkedToken, tokenShapes } from '../pagination.ts';
import {
  IdempotencyKeySchema,
  ListReceiptsQuerySchema,
  ListRunsQuerySchema,
  StartRunBodySchema,
  TranscriptQuerySchema,
} from '../schemas.ts';
import { readTranscriptPage } from './transcript.ts';

const RUN_ID = /^run_[A-Za-z0-9]{6,40}$/;

/** One of `owner`'s runs; a malformed, foreign or missing id is the same 404. */
async function loadRun(deps: ApiDeps, owner: string, runId: string): Promise<Run> {
  if (!RUN_ID.test(runId)) throw notFound('run');
  const run = await deps.store.getRun(runId);
  if (!run || run.owner !== owner) throw notFound('run');
  return run;
}

/** The chain's verification, or the first entry whose transcript binding fails (see transcript-binding.ts). */
async function bindTranscript<T extends { ok: true }>(
  deps: ApiDeps,
  runId: string,
  entries: unknown[],
  chain: T,
): Promise<T | TranscriptBindingFailure> {
  try {
    const binding = verifyTranscriptBinding(
      entries.map((entry) => AuditEntrySchema.parse(entry)),
      await deps.store.listMessages(runId),
    );
    return binding.ok ? chain : binding;
  } catch (error) {
    if (!(error instanceof ItemCorruptError)) throw error;
    return { ok: false, firstBrokenSeq: 0, reason: 'transcript_mismatch', message: error.message };
  }
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
    let run = await loadRun(deps, c.get('identity').owner, c.req.param('id'));
    let entries = await deps.store.listAuditItems(run.runId);
    // The run item records the chain's head. An entry written between the two reads is not tampering:
    // read again until the run and its entries agree (a truncated chain keeps disagreeing, and shows).
    for (let attempt = 0; attempt < 5 && entries.length !== run.audit.seq; attempt++) {
      run = await loadRun(deps, c.get('identity').owner, run.runId);
      entries = await deps.store.listAuditItems(run.runId);
    }
    const chain = verifyAuditChain(entries, {
      owner: run.owner,
      runId: run.runId,
      ...(run.audit.seq > 0 ? { expectedHead: { seq: run.audit.seq - 1, hash: run.audit.head } } : {}),
    });
    // The chain holds hashes of the transcript as stored: an edited message breaks the entry that bound it.
    const verification = chain.ok ? await bindTranscript(deps, run.runId, entries, chain) : chain;
    const anchor = await deps.store.getRunAnchor(run.owner, run.runId);
    const anchored = verification.ok && anchor !== undefined && anchor.runHead === verification.head;
    return c.json({ runId: run.runId, entries, verification, anchor: anchor ?? null, anchored });
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
    if (!RUN_ID.test(runId)) throw notFound('run');
    const run = await cancelRun(deps, { owner: identity.owner, runId, actor: actorOf(identity) });
    if (!run) throw notFound('run');
    return c.json({ run: withExecutionArn(deps.executions, run) });
  });

  return app;
}
