/**
 * `GET /v1/runs/{id}/receipts` on DynamoDB Local: one receipt per ledger row, with the status as the ledger
 * rules read it (outcome unknown is not a failure), a digest of the stored outcome, and what a duplicate call
 * does; paginated with tokens fenced to the run; owner-fenced (fencing.test.ts covers foreign = missing).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { argsHash } from '../../shared/approvals/index.ts';
import { canonicalJson, sha256Hex } from '../../shared/audit/index.ts';
import { receiptLine } from '../../shared/cli/receipts.ts';
import { idempotencyKeyFor } from '../../shared/core/identity.ts';
import type { LedgerRow } from '../../shared/schemas/ledger.ts';
import { apiHarness, definition } from './helpers.ts';

const h = apiHarness();
let runId: string;
let otherRunId: string;
const AT = '2026-11-30T07:00:00.000Z';
const LATER = '2026-11-30T07:00:02.000Z';

function row(toolUseId: string, fields: Partial<LedgerRow>): LedgerRow {
  const tool = fields.tool ?? 'notes_put';
  return {
    schemaVersion: 1,
    runId,
    toolUseId,
    turn: 1,
    tool,
    argsHash: argsHash(tool, { name: toolUseId }),
    idempotent: false,
    idempotencyKey: idempotencyKeyFor(runId, 1, toolUseId),
    status: 'pending',
    attempts: 1,
    createdAt: AT,
    ...fields,
  } as LedgerRow;
}

const OK = { content: 'stored', isError: false };
const UNKNOWN = {
  content: 'Outcome unknown: may have taken effect',
  isError: true,
  outcomeUnknown: true as const,
};

beforeAll(async () => {
  const created = await h.alice.post('/v1/workflows', definition());
  runId = (await h.alice.post(`/v1/workflows/${created.body.workflow.workflowId}/runs`, {})).body.run.runId;
  otherRunId = (await h.alice.post(`/v1/workflows/${created.body.workflow.workflowId}/runs`, {})).body.run
    .runId;
  const run = (await h.store.getRun(runId))!;
  await h.store.commit({
    run,
    next: run,
    ledgerCreate: [
      row('t1', { status: 'completed', outcome: OK, settledAt: LATER }),
      row('t2', {
        status: 'failed',
        outcome: UNKNOWN,
        outcomeUnknown: true,
        settledAt: LATER,
        tool: 'http_post',
      }),
      row('t3', { status: 'pending', idempotent: true, tool: 'http_put' }),
      row('t4', { status: 'pending' }),
      row('t5', {
        status: 'refused',
        attempts: 0,
        outcome: { content: 'Denied', isError: true },
        settledAt: AT,
      }),
    ],
  });
});

describe('GET /v1/runs/{id}/receipts', () => {
  it('lists each side effect with its status, digest and what a duplicate does', async () => {
    const reply = await h.alice.get(`/v1/runs/${runId}/receipts`);
    expect(reply.status).toBe(200);
    expect(reply.body.runId).toBe(runId);
    expect(reply.body.nextToken).toBeUndefined();
    const byId = Object.fromEntries(reply.body.items.map((r: { toolUseId: string }) => [r.toolUseId, r]));
    expect(byId.t1).toEqual({
      toolUseId: 't1',
      turn: 1,
      action: 'notes_put',
      argsHash: argsHash('notes_put', { name: 't1' }),
      idempotent: false,
      idempotencyKey: idempotencyKeyFor(runId, 1, 't1'),
      status: 'completed',
      attempts: 1,
      createdAt: AT,
      settledAt: LATER,
      outcomeDigest: sha256Hex(canonicalJson(OK)),
      onDuplicate: 'reuses_outcome',
    });
    expect(byId.t2).toMatchObject({
      status: 'outcome_unknown',
      onDuplicate: 'refused_outcome_unknown',
      outcomeDigest: sha256Hex(canonicalJson(UNKNOWN)),
    });
    expect(byId.t3).toMatchObject({ status: 'pending', onDuplicate: 'resent_with_same_key' });
    expect(byId.t3.outcomeDigest).toBeUndefined();
    expect(byId.t4).toMatchObject({ status: 'pending', onDuplicate: 'refused_outcome_unknown' });
    expect(byId.t5).toMatchObject({ status: 'refused', onDuplicate: 'reuses_outcome' });
  });

  it('pages with limit and nextToken, and refuses a token of another run', async () => {
    const first = await h.alice.get(`/v1/runs/${runId}/receipts?limit=2`);
    expect(first.body.items.map((r: { toolUseId: string }) => r.toolUseId)).toEqual(['t1', 't2']);
    const second = await h.alice.get(`/v1/runs/${runId}/receipts?limit=2&nextToken=${first.body.nextToken}`);
    expect(second.body.items.map((r: { toolUseId: string }) => r.toolUseId)).toEqual(['t3', 't4']);
    const foreign = await h.alice.get(`/v1/runs/${otherRunId}/receipts?nextToken=${first.body.nextToken}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.fields).toEqual([
      { path: 'nextToken', message: 'is not a token this listing issued' },
    ]);
    expect((await h.alice.get(`/v1/runs/${runId}/receipts?limit=0`)).status).toBe(400);
  });

  it('a run without side effects has no receipts; a foreign run is 404', async () => {
    expect((await h.alice.get(`/v1/runs/${otherRunId}/receipts`)).body).toEqual({
      runId: otherRunId,
      items: [],
    });
    expect((await h.bob.get(`/v1/runs/${runId}/receipts`)).status).toBe(404);
  });

  it('wf run receipts prints one line per receipt', async () => {
    const { body } = await h.alice.get(`/v1/runs/${runId}/receipts`);
    expect(receiptLine(body.items[1])).toBe(
      `turn 1  http_post  outcome_unknown  key ${idempotencyKeyFor(runId, 1, 't2')}  args ${argsHash('http_post', { name: 't2' }).slice(0, 12)}  outcome ${sha256Hex(canonicalJson(UNKNOWN)).slice(0, 12)}  ${AT} → ${LATER}  duplicate: refused (outcome unknown)`,
    );
  });
});
