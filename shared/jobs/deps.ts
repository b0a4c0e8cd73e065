/** What the job operations are built from: the run store and executions (as for runs), time, ids, models. */
import type { FirstTurnPlanning } from '../core/first-reservation.ts';
import type { Clock, Ids } from '../core/ports.ts';
import type { ExecutionsPort } from '../runs/ports.ts';
import type { DynamoStore } from '../store/index.ts';
import type { ModelCatalog } from './resolve.ts';
import type { RetryPolicy } from './retry.ts';

export type JobsDeps = {
  store: DynamoStore;
  executions: ExecutionsPort;
  clock: Clock;
  ids: Ids;
  /** The deployment's prices and roles: a model without a price is refused at submission. */
  models: ModelCatalog;
  /** What turn 0's reservation is estimated from (runs/first-turn.ts); default: `models` and the catalog. */
  firstTurn?: FirstTurnPlanning;
  /** @default DEFAULT_RETRY_POLICY */
  retry?: RetryPolicy;
  /** Where a promotion's warnings go (its scan bound reached); default a JSON line on stderr. */
  log?: { warn(message: string, fields: Record<string, unknown>): void };
};

/**
 * A delegated-jobs client: its id and the owner its credential proves (a local client key's owner, a JWT's
 * owner scope; '' when none). A grant applies only when it is that owner's grant of that client id.
 */
export type JobCaller = { clientId: string; owner: string; principal: string };

export const isoNow = (clock: Clock): string => new Date(clock.nowMs()).toISOString();
