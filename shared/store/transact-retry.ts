/**
 * One TransactWriteItems, sent again while it is cancelled only by conflicts with other transactions in flight
 * (`TransactionConflict`: no condition failed, nothing was written), after a jittered wait each time so the
 * contenders do not meet again in lockstep
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling).
 * Anything else, and the conflict of the last send, is thrown for the caller to classify.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { backOff } from './backoff.ts';
import { isConflictOnly, type StoreContext } from './client.ts';

type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

/** Sends of one transaction cancelled only by conflicts, before the conflict is thrown. */
export const CONFLICT_ATTEMPTS = 4;
/** The jittered wait before each send again (`backOff`: at most min(cap, base × 2^attempt)). */
export const CONFLICT_BACKOFF = { baseMs: 25, capMs: 400 };

export async function transactRetryingConflicts(ctx: StoreContext, items: TransactItems): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ctx.doc.send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      const conflictOnly =
        error instanceof TransactionCanceledException && isConflictOnly(error.CancellationReasons ?? []);
      if (!conflictOnly || attempt >= CONFLICT_ATTEMPTS) throw error;
      await backOff(attempt, CONFLICT_BACKOFF);
    }
  }
}
