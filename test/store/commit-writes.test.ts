/**
 * What a run commit sends (shared/store/run-update.ts, shared/store/ledger-settle.ts): the run item as an Update
 * of the attributes that changed, fenced on the revision read, and a ledger settle as an Update of the
 * settlement's fields, conditional on `pending`; the items they leave are the ones a Put of the whole item left;
 * and the size limits still count the whole items.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  LedgerConflictError,
  RunConflictError,
  TransactionTooLargeError,
} from '../../shared/core/store-errors.ts';
import type { LedgerRow } from '../../shared/schemas/ledger.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { keys } from '../../shared/store/index.ts';
import { runItem } from '../../shared/store/run-update.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
type Action = Record<
  string,
  { Key?: Record<string, unknown>; Item?: Record<string, unknown> } & Record<string, unknown>
>;
/** The actions of every TransactWriteItems the store sent, as the document client was given them. */
const sent: Action[][] = [];
store.ctx.doc.middlewareStack.add(
  (next, context) => async (args) => {
    if (context.commandName === 'TransactWriteItemsCommand')
      sent.push(structuredClone((args.input as { TransactItems: Action[] }).TransactItems));
    return next(args);
  },
  { step: 'initialize', name: 'recordTransactions' },
);
beforeEach(() => {
  sent.length = 0;
});

const rawItem = async (key: { pk: string; sk: string }) =>
  (await store.ctx.doc.send(new GetCommand({ TableName: store.ctx.table, Key: key, ConsistentRead: true })))
    .Item;

/** The action of the last transaction on the item at `key`. */
const actionOn = (key: { pk: string; sk: string }) =>
  sent.at(-1)!.find((action) => {
    const body = Object.values(action)[0]!;
    const target = (body.Key ?? body.Item)!;
    return target.pk === key.pk && target.sk === key.sk;
  })!;

/** A run with a large input, as the API may start one (up to 256 KiB: docs/api.md). */
async function runWithInput(input: unknown): Promise<Run> {
  const { version } = await seedWorkflow(store, minimalWorkflow());
  return seedRun(store, version, { input });
}

describe('A run commit', () => {
  it('sends only the run attributes that changed, and leaves the item a Put of the whole run left', async () => {
    // Prepare: a run whose creation reserved turn 0 (the reservation is dropped below) and a large input.
    const run = await runWithInput({ document: 'd'.repeat(50_000) });
    expect(run.reservation).toBeDefined();
    const { reservation: _dropped, ...withoutReservation } = run;

    // Act
    const committed = await store.commit({
      run,
      next: { ...withoutReservation, status: 'running', turn: 1 },
      audit: [{ type: 'status_changed', actor: 'system', data: { from: 'pending', to: 'running' } }],
    });

    // Assess: an Update of what changed, fenced on the revision read; nothing of the input or the trigger.
    const { Update } = actionOn(keys.run(run.runId));
    expect(Update).toBeDefined();
    expect(Update!.ConditionExpression).toBe('#rev = :rev');
    expect((Update!.ExpressionAttributeValues as Record<string, unknown>)[':rev']).toBe(run.rev);
    expect(Object.values(Update!.ExpressionAttributeNames as Record<string, string>).sort()).toEqual(
      ['audit', 'reservation', 'rev', 'status', 'turn', 'updatedAt'].filter(
        (name) => name !== 'updatedAt' || committed.updatedAt !== run.updatedAt,
      ),
    );
    expect(JSON.stringify(Update).length).toBeLessThan(1_000);
    // The item as a Put of the whole next run would have left it: the reservation removed, the rest as read.
    expect(await rawItem(keys.run(run.runId))).toEqual(runItem(committed));
    expect(committed).toMatchObject({ status: 'running', turn: 1, rev: run.rev + 1 });
    expect(await store.getRun(run.runId)).toEqual(committed);
  });

  it('writes nothing from a revision that moved on, and answers RunConflictError as before', async () => {
    // Prepare
    const run = await runWithInput({ n: 1 });
    await store.commit({ run, next: { ...run, status: 'running' } });

    // Act
    const stale = store.commit({ run, next: { ...run, status: 'cancelled' } });

    // Assess
    await expect(stale).rejects.toBeInstanceOf(RunConflictError);
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'running', rev: run.rev + 1 });
  });

  it('refuses, before sending it, a commit that would take the whole run item past 400 KB', async () => {
    // Prepare: 300 KB of input on the run; the commit adds a 150 KB result (only the result travels).
    const run = await runWithInput({ document: 'd'.repeat(300 * 1024) });
    sent.length = 0;

    // Act
    const commit = store.commit({
      run,
      next: { ...run, status: 'running', result: { text: 'r'.repeat(150 * 1024) } },
    });

    // Assess: the item limit counts the item the Update leaves; nothing went out, nothing changed.
    await expect(commit).rejects.toBeInstanceOf(TransactionTooLargeError);
    await expect(commit).rejects.toThrow(/item 0 is \d+ bytes/);
    expect(sent).toEqual([]);
    expect(await store.getRun(run.runId)).toEqual(run);
  });
});

describe('A ledger settle', () => {
  const pendingRow = (run: Run): LedgerRow => ({
    schemaVersion: 1,
    runId: run.runId,
    toolUseId: 'toolu_settle_1',
    turn: 0,
    tool: 'notes_append',
    argsHash: 'a'.repeat(64),
    idempotent: false,
    idempotencyKey: 'wf-toolu_settle_1',
    status: 'pending',
    attempts: 1,
    createdAt: '2026-11-30T07:00:00.000Z',
  });

  it('sends the settlement only, conditional on pending, and leaves the whole settled row', async () => {
    // Prepare
    let run = await runWithInput(undefined);
    const row = pendingRow(run);
    run = await store.commit({ run, next: run, ledgerCreate: [row] });
    const settled: LedgerRow = {
      ...row,
      status: 'failed',
      outcome: { content: 'lost', isError: true, outcomeUnknown: true },
      outcomeUnknown: true,
      settledAt: '2026-11-30T07:00:01.000Z',
    };

    // Act
    run = await store.commit({ run, next: run, ledgerSettle: [settled] });

    // Assess: the call's identity is not sent again; the row holds it and the settlement.
    const { Update } = actionOn(keys.ledger(run.runId, row.toolUseId));
    expect(Update).toBeDefined();
    expect(Update!.ConditionExpression).toBe('#status = :pending');
    expect(Object.values(Update!.ExpressionAttributeNames as Record<string, string>).sort()).toEqual([
      'attempts',
      'outcome',
      'outcomeUnknown',
      'settledAt',
      'status',
    ]);
    expect(await rawItem(keys.ledger(run.runId, row.toolUseId))).toEqual({
      ...keys.ledger(run.runId, row.toolUseId),
      ...settled,
    });
    expect(await store.listLedger(run.runId)).toEqual([settled]);
  });

  it('settles a row once, and never a row that was not recorded pending', async () => {
    // Prepare
    let run = await runWithInput(undefined);
    const row = pendingRow(run);
    run = await store.commit({ run, next: run, ledgerCreate: [row] });
    const settled: LedgerRow = {
      ...row,
      status: 'completed',
      outcome: { content: 'ok', isError: false },
      settledAt: '2026-11-30T07:00:01.000Z',
    };
    run = await store.commit({ run, next: run, ledgerSettle: [settled] });

    // Act: both at once, each settled before either is looked at (a rejection left unobserved while the other
    // is awaited is an unhandled rejection, which fails the run).
    const [again, unrecorded] = await Promise.allSettled([
      store.commit({
        run,
        next: run,
        ledgerSettle: [{ ...settled, outcome: { content: 'again', isError: false } }],
      }),
      store.commit({
        run,
        next: run,
        ledgerSettle: [{ ...settled, toolUseId: 'toolu_never_recorded' }],
      }),
    ]);

    // Assess
    expect(again).toMatchObject({ status: 'rejected', reason: expect.any(LedgerConflictError) });
    expect(unrecorded).toMatchObject({ status: 'rejected', reason: expect.any(LedgerConflictError) });
    expect(await store.listLedger(run.runId)).toEqual([settled]);
    expect((await store.getRun(run.runId))?.rev).toBe(run.rev);
  });
});
