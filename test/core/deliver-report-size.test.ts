/**
 * A report destination keeps its Markdown report on the run item, which DynamoDB caps at 400 KB, attribute names
 * included (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html). A legal run can
 * hold 256 KiB of input and a 64 KiB result, and its ledger up to 10,000 calls (maxTurns 200 × 50 calls a turn):
 * its report must be capped to fit beside the rest of the item, or the delivery write fails on every retry.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { utf8Length } from '../../shared/core/byte-caps.ts';
import { deliverResult, REPORT_MAX_BYTES, renderReport, reportRoom } from '../../shared/core/deliver.ts';
import { DYNAMO_ITEM_LIMIT_BYTES, itemBytes } from '../../shared/core/item-size.ts';
import { RUN_INPUT_MAX_BYTES } from '../../shared/core/storable.ts';
import { MAX_RESULT_TEXT_BYTES } from '../../shared/core/transcript-limits.ts';
import { keys } from '../../shared/store/keys.ts';
import { driveRun, engineDeps, ScriptedModel, text } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const clock = new FixedClock();
const destinations = {
  alert: async () => {
    throw new Error('a report destination publishes nothing');
  },
  http: async () => {
    throw new Error('a report destination posts nothing');
  },
};

/** `count` settled ledger rows for `runId`, written as the engine writes them, each with a long tool name. */
async function seedLedger(runId: string, count: number, tool: string) {
  const rows = Array.from({ length: count }, (_, index) => ({
    ...keys.ledger(runId, `toolu_${String(index).padStart(5, '0')}`),
    schemaVersion: 1,
    runId,
    toolUseId: `toolu_${String(index).padStart(5, '0')}`,
    turn: Math.floor(index / 50),
    tool,
    argsHash: 'a'.repeat(64),
    idempotent: false,
    idempotencyKey: `key-${index}`,
    status: 'completed',
    attempts: 1,
    outcome: { content: 'ok', isError: false },
    createdAt: '2026-01-01T00:00:00.000Z',
    settledAt: '2026-01-01T00:00:00.000Z',
  }));
  for (let start = 0; start < rows.length; start += 25)
    await store.ctx.doc.send(
      new BatchWriteCommand({
        RequestItems: {
          [store.ctx.table]: rows.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })),
        },
      }),
    );
}

describe('report size', () => {
  it('caps the report of a run with the largest input, result and ledger so the delivery is recorded', async () => {
    // Prepare: the largest input a run takes, a model answer over the result cap, 600 calls with long names.
    const { version } = await seedWorkflow(store, minimalWorkflow({ destination: { type: 'report' } }));
    const input = { text: 'i'.repeat(RUN_INPUT_MAX_BYTES - 64) };
    const run = await seedRun(store, version, { input });
    await driveRun(
      engineDeps(
        store,
        new ScriptedModel([{ content: [text('r'.repeat(80_000))], stopReason: 'end_turn' }]),
        {
          clock,
        },
      ),
      run.runId,
    );
    await seedLedger(run.runId, 600, `connector_${'n'.repeat(100)}`);

    // Act
    const delivered = await deliverResult({ store, clock, destinations }, run.runId);

    // Assert: delivered, its report cut with a note and within budget, the item under 400 KB, the chain intact.
    expect(delivered?.delivery).toMatchObject({ destination: 'report', status: 'delivered' });
    const report = delivered?.delivery?.report ?? '';
    expect(utf8Length(report)).toBeLessThanOrEqual(REPORT_MAX_BYTES);
    expect(report).toContain('# ');
    expect(report).toMatch(/\[truncated: the report was over \d+ bytes; read the whole run in the API\]$/);
    const stored = await store.getRun(run.runId);
    expect(stored?.delivery?.report).toBe(report);
    expect(itemBytes({ ...keys.run(run.runId), ...stored })).toBeLessThan(DYNAMO_ITEM_LIMIT_BYTES);
    expect(
      verifyAuditChain(await store.listAudit(run.runId), { owner: run.owner, runId: run.runId }),
    ).toMatchObject({ ok: true });
  });

  it('records a refused delivery when the run item has under 1 KiB left for its report', async () => {
    // Prepare: a finished run with a long result; a second one whose input is longer by the first one's room
    // minus 500 bytes, so it has 500 bytes left (the room shrinks byte for byte with an ASCII input).
    const { version } = await seedWorkflow(store, minimalWorkflow({ destination: { type: 'report' } }));
    const finished = async (inputBytes: number) => {
      const run = await seedRun(store, version, { input: { text: 'i'.repeat(inputBytes) } });
      const model = new ScriptedModel([{ content: [text('r'.repeat(80_000))], stopReason: 'end_turn' }]);
      await driveRun(engineDeps(store, model, { clock }), run.runId);
      return (await store.getRun(run.runId))!;
    };
    const first = await finished(250_000);
    const run = await finished(250_000 + reportRoom(first) - 500);
    expect(reportRoom(run)).toBe(500);

    // Act
    const delivered = await deliverResult({ store, clock, destinations }, run.runId);

    // Assert: refused and recorded, no report, the refusal in the audit chain.
    expect(delivered?.delivery).toEqual({
      destination: 'report',
      status: 'refused',
      at: expect.any(String),
      detail:
        'refused: the run item has 500 bytes left for its report (at least 1024 needed); read the run in the API',
    });
    expect((await store.getRun(run.runId))?.delivery?.status).toBe('refused');
    const audit = await store.listAudit(run.runId);
    expect(audit.at(-1)).toMatchObject({ type: 'error', data: { name: 'DeliveryRefusedError' } });
  });

  it('lists at most 200 actions in a report, then says how many more there were', async () => {
    const { version } = await seedWorkflow(store, minimalWorkflow({ destination: { type: 'report' } }));
    const run = await seedRun(store, version);
    const actions = Array.from({ length: 10_000 }, (_, index) => `notes_put_${index}: completed`);

    const report = renderReport(run, version.definition, undefined, actions);

    expect(report).toContain('- notes_put_199: completed\n- … and 9800 more actions');
    expect(report).not.toContain('notes_put_200:');
    expect(utf8Length(report)).toBeLessThanOrEqual(REPORT_MAX_BYTES);
    expect(MAX_RESULT_TEXT_BYTES).toBeLessThan(REPORT_MAX_BYTES);
  });
});
