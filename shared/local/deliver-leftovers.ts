/**
 * On start, the local stack delivers the runs a crash left finished but undelivered, through the Deliver
 * handler the state machine uses (so the record, the audit entry, the anchor and an `http` destination's
 * `Idempotency-Key` are the ones a normal Deliver would write and send). Deliver's idempotency on
 * `run.delivery` makes this safe to repeat: a run delivered meanwhile is not sent again.
 */
import type { DynamoStore } from '../store/index.ts';
import { listUndeliveredRuns } from './undelivered-runs.ts';

type DeliverHandler = (event: { runId: string; turn: number }) => Promise<unknown>;
type Logger = { error(message: string, fields: Record<string, unknown>): void };

/** Delivers each leftover run; returns their ids. A delivery that fails stays for the next start, and says so. */
export async function deliverLeftovers(
  store: DynamoStore,
  deliver: DeliverHandler,
  logger: Logger,
): Promise<string[]> {
  const delivered: string[] = [];
  for (const run of await listUndeliveredRuns(store)) {
    try {
      await deliver({ runId: run.runId, turn: run.turn });
      delivered.push(run.runId);
    } catch (error) {
      // Not recorded as refused: the failure may be passing (a destination down); the next start tries again.
      logger.error('delivery of a finished run failed; the next start tries again', {
        runId: run.runId,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
    }
  }
  return delivered;
}
