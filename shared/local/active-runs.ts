/**
 * Runs that have not ended, across owners: what the local stack resumes on start. On AWS, executions survive on
 * their own and nothing needs resuming.
 */
import type { Run } from '../schemas/run.ts';
import type { DynamoStore } from '../store/index.ts';
import { scanRuns } from './scan-runs.ts';

export function listActiveRuns(store: DynamoStore): Promise<Run[]> {
  return scanRuns(store, {
    expression: '#status IN (:pending, :running, :awaiting)',
    names: { '#status': 'status' },
    values: { ':pending': 'pending', ':running': 'running', ':awaiting': 'awaiting_approval' },
  });
}
