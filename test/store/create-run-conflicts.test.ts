/**
 * Run creation retries a transaction cancelled only by conflicts with others in flight, after a jittered
 * backoff each time (contenders retrying at once meet again). The conflicts are injected in front of DynamoDB
 * Local; the backoff is observed, not waited for.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { prepareRun } from '../../shared/core/new-run.ts';
import { FixedClock, minimalWorkflow, randomIds, seedWorkflow, testStore } from '../support/store.ts';

const waits = vi.hoisted(() => [] as number[]);
vi.mock('../../shared/store/backoff.ts', () => ({
  backOff: async (attempt: number) => {
    waits.push(attempt);
  },
}));

const store = testStore();
let conflictsLeft = 0;
let transactions = 0;
store.ctx.doc.middlewareStack.add(
  (next, context) => async (args) => {
    if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
    transactions++;
    if (conflictsLeft === 0) return next(args);
    conflictsLeft--;
    throw new TransactionCanceledException({
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
      $metadata: {},
      CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
    });
  },
  { step: 'initialize', name: 'injectTransactionConflicts' },
);

beforeEach(() => {
  waits.length = 0;
  conflictsLeft = 0;
});

/** Creates a run whose first `conflicts` creation transactions are cancelled by a conflict. */
async function create(conflicts: number) {
  const { version } = await seedWorkflow(store, minimalWorkflow());
  const clock = new FixedClock();
  conflictsLeft = conflicts;
  transactions = 0;
  return store.createRun(
    prepareRun({
      version,
      trigger: { type: 'on_demand', caller: 't' },
      clock,
      ids: randomIds,
      actor: 'owner:t',
    }),
  );
}

describe('Run creation under transaction conflicts', () => {
  it('backs off before each retry and creates the run once the conflicts pass', async () => {
    // Act
    const { run, created } = await create(3);

    // Assess
    expect(created).toBe(true);
    expect(transactions).toBe(4);
    expect(waits).toEqual([1, 2, 3]);
    expect(await store.getRun(run.runId)).toEqual(run);
  });

  it('gives up after four attempts with the conflict', async () => {
    // Act
    const creation = create(5);

    // Assess
    await expect(creation).rejects.toBeInstanceOf(TransactionCanceledException);
    expect(transactions).toBe(4);
    expect(waits).toEqual([1, 2, 3]);
  });
});
