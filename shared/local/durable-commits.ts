/**
 * Makes DynamoDB Local's acknowledged transactions survive `kill -9` of the local stack.
 *
 * Why: DynamoDB Local (the 2026-01-16 jar) answers `TransactWriteItems` before the transaction is committed.
 * Its `SQLiteDBAccess.commitTransaction` puts the SQLite `COMMIT` on its single-threaded job queue
 * (sqlite4java's `SQLiteQueue`) and returns without waiting for it, unlike every other operation, which waits
 * for its job. A process killed in that window loses the whole transaction: measured, 9 of 12 transactions
 * acknowledged and then killed were gone after a restart (0 of 6 plain `PutItem`s). Every run change is a
 * transaction (shared/store/commit.ts), so a ledger row written `pending` before a dispatch could vanish and
 * the call be sent again with no "outcome unknown".
 *
 * The fix, in the local composition root only: after a successful `TransactWriteItems`, a strongly consistent
 * `GetItem` (which does wait for its job) goes through the same queue. The queue runs jobs in order, so when
 * that read answers, the `COMMIT` queued before it has run, and the caller only then goes on (to dispatch).
 * SQLite's default rollback journal makes a finished `COMMIT` survive the process being killed; power loss
 * or an OS crash is not covered (DynamoDB Local sets no `synchronous` pragma).
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { StoreContext } from '../store/client.ts';

/** The key the barrier reads; it is never written. */
export const BARRIER_KEY = { pk: { S: 'LOCAL#DURABILITY' }, sk: { S: 'BARRIER' } } as const;

const TRANSACTIONAL = new Set(['TransactWriteItemsCommand', 'ExecuteTransactionCommand']);

/**
 * Adds the barrier to the store context's client (in place) and returns it; `onBarrier` is a test hook
 * called after each barrier read.
 */
export function durableLocalCommits(ctx: StoreContext, onBarrier?: (command: string) => void): StoreContext {
  ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const command = context.commandName ?? '';
      if (TRANSACTIONAL.has(command)) {
        await ctx.doc.send(
          new GetItemCommand({ TableName: ctx.table, Key: BARRIER_KEY, ConsistentRead: true }),
        );
        onBarrier?.(command);
      }
      return result;
    },
    { step: 'initialize', name: 'wfLocalCommitBarrier' },
  );
  return ctx;
}
