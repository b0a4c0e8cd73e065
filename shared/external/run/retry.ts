/**
 * Each step re-reads the run and does its work again when a concurrent write moved the run (start-run storing
 * the execution ARN, an owner's cancel request). Safe: a repeated Start sends the same key and payload (the
 * engine deduplicates), a repeated Observe only observes, a repeated Finish re-verifies.
 */
import { LedgerConflictError, RunConflictError } from '../../core/store-errors.ts';

export async function withConflictRetry<T>(step: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      const raced = error instanceof RunConflictError || error instanceof LedgerConflictError;
      if (!raced || attempt >= attempts) throw error;
    }
  }
}
