/**
 * Runs that finished deliverable (`done`, or `denied` and degraded) but have no delivery record: the stack was
 * killed between the Turn's commit and Deliver's. On AWS the execution goes on to Deliver by itself; locally
 * the execution died with the process, so the stack delivers these on start (docs/local-stack.md).
 */
import { isDeliverable } from '../core/degraded.ts';
import type { Run } from '../schemas/run.ts';
import type { DynamoStore } from '../store/index.ts';
import { scanRuns } from './scan-runs.ts';

export async function listUndeliveredRuns(store: DynamoStore): Promise<Run[]> {
  const runs = await scanRuns(store, {
    expression: '#status IN (:done, :denied) AND attribute_not_exists(delivery)',
    names: { '#status': 'status' },
    values: { ':done': 'done', ':denied': 'denied' },
  });
  return runs.filter(isDeliverable);
}
