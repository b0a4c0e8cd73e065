/**
 * A run commit cancelled only by conflicts with other transactions in flight (a shared counter: the day's
 * spend, a graph run's budget) is sent again after a jittered backoff; past its attempts it is a busy store
 * (StoreThrottledError, which the state machines retry), never a lost fence (RunConflictError, which would end
 * a turn's retry). The conflicts are injected in front of DynamoDB Local; the backoff is observed, not waited for.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { prepareRun } from '../../shared/core/new-run.ts';
import { RunConflictError, StoreThrottledError } from '../../shared/core/store-errors.ts';
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
let reasons = [{ Code: 'None' }, { Code: 'TransactionConflict' }];
store.ctx.doc.middlewareStack.add(
  (next, context) => async (args) => {
    if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
    transactions++;
    if (conflictsLeft === 0) return next(args);
    conflictsLeft--;
    throw new TransactionCanceledException({
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
      $metadata: {},
      CancellationReasons: reasons,
    });
  },
  { step: 'initialize', name: 'injectTransactionConflicts' },
);

beforeEach(() => {
  waits.length = 0;
  conflictsLeft = 0;
  reasons = [{ Code: 'None' }, { Code: 'TransactionConflict' }];
});

/** A created run, and a commit of it to `running` whose first `conflicts` transactions are cancelled. */
async function commitWith(conflicts: number) {
  const { version } = await seedWorkflow(store, minimalWorkflow());
  const { run } = await store.createRun(
    prepareRun({
      version,
      trigger: { type: 'on_demand', caller: 't' },
      clock: new FixedClock(),
      ids: randomIds,
      actor: 'owner:t',
    }),
  );
  conflictsLeft = conflicts;
  transactions = 0;
  return { run, commit: store.commit({ run, next: { ...run, status: 'running' } }) };
}

describe('A run commit under transaction conflicts', () => {
  it('backs off before each retry and commits once the conflicts pass', async () => {
    // Act
    const { run, commit } = await commitWith(3);
    const committed = await commit;

    // Assess
    expect(transactions).toBe(4);
    expect(waits).toEqual([1, 2, 3]);
    expect(committed.rev).toBe(run.rev + 1);
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'running', rev: run.rev + 1 });
  });

  it('answers a busy store, not a lost fence, after four attempts, and writes nothing', async () => {
    // Act
    const { run, commit } = await commitWith(5);

    // Assess
    const error = await commit.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreThrottledError);
    expect(error).not.toBeInstanceOf(RunConflictError);
    expect(transactions).toBe(4);
    expect(waits).toEqual([1, 2, 3]);
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'pending', rev: run.rev });
  });

  it('does not retry a cancellation for any other reason', async () => {
    // Arrange: a reason that is neither a conflict nor a throttle nor a failed condition
    reasons = [{ Code: 'None' }, { Code: 'ValidationError' }];

    // Act
    const { commit } = await commitWith(1);

    // Assess
    await expect(commit).rejects.toBeInstanceOf(RunConflictError);
    expect(transactions).toBe(1);
    expect(waits).toEqual([]);
  });
});
