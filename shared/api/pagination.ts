/**
 * Page tokens are the store's (a DynamoDB key, base64url JSON). Before one is used it is checked to be a key
 * of the caller's own listing, so a forged or foreign token is a 400 rather than a DynamoDB error or a peek
 * into someone else's partition.
 */
import { utf8Length } from '../core/byte-caps.ts';
import { decodeToken } from '../store/index.ts';
import { invalid } from './errors.ts';

type Expect = { equals: string } | { prefix: string };
export type TokenShape = Record<string, Expect>;

/**
 * The longest key value a token may carry, in UTF-8 bytes: a sort key value is at most 1,024 bytes (a partition
 * key 2,048; https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-partition-sort-keys),
 * and every key of a page token is a stored item's, whose partition keys are far shorter. Counted in bytes, not
 * characters: `WF#` and 400 `€` is 403 characters but 1,203 bytes. DynamoDB Local pages from such an
 * `ExclusiveStartKey` without complaint; it is no key of any item, so it is refused here like any forged token.
 */
export const TOKEN_KEY_MAX_BYTES = 1024;

const badToken = () => invalid([{ path: 'nextToken', message: 'is not a token this listing issued' }]);

/** The token, if it decodes to a key of exactly this shape; otherwise a 400 naming `nextToken`. */
export function checkedToken(token: string | undefined, shape: TokenShape): string | undefined {
  if (token === undefined) return undefined;
  let key: Record<string, unknown> | undefined;
  try {
    key = decodeToken(token);
  } catch {
    throw badToken();
  }
  if (!key) throw badToken();
  const names = Object.keys(key);
  if (names.length !== Object.keys(shape).length) throw badToken();
  for (const name of names) {
    const expect = shape[name];
    const value = key[name];
    if (!expect || typeof value !== 'string' || utf8Length(value) > TOKEN_KEY_MAX_BYTES) throw badToken();
    if ('equals' in expect ? value !== expect.equals : !value.startsWith(expect.prefix)) throw badToken();
  }
  return token;
}

/** The key shapes of each listing (base table key plus, for index queries, the index key). */
export const tokenShapes = {
  workflows: (owner: string): TokenShape => ({ pk: { equals: `OWNER#${owner}` }, sk: { prefix: 'WF#' } }),
  runsByOwner: (owner: string): TokenShape => ({
    pk: { prefix: 'RUN#' },
    sk: { equals: 'RUN' },
    gsi1pk: { equals: `OWNER#${owner}` },
    gsi1sk: { prefix: 'RUN#' },
  }),
  runsByWorkflow: (owner: string, workflowId: string): TokenShape => ({
    pk: { prefix: 'RUN#' },
    sk: { equals: 'RUN' },
    gsi2pk: { equals: `WF#${owner}#${workflowId}` },
    gsi2sk: { prefix: 'RUN#' },
  }),
  /** A run's ledger rows (the run is the caller's: checked before the token is). */
  receipts: (runId: string): TokenShape => ({ pk: { equals: `RUN#${runId}` }, sk: { prefix: 'TOOL#' } }),
  /** Where a run's next transcript page starts (shared/api/routes/transcript.ts). */
  transcript: (runId: string): TokenShape => ({ pk: { equals: `RUN#${runId}` }, sk: { prefix: 'MSG#' } }),
  /** Where a run's next audit page starts, and the hash it links from (audit-cursors.ts). */
  runAudit: (runId: string): TokenShape => ({ pk: { equals: `RUN#${runId}` }, sk: { prefix: 'AUD#' } }),
  /** Where the owner's next audit page starts (audit-cursors.ts): bound to the owner's partition. */
  ownerAudit: (owner: string): TokenShape => ({ pk: { equals: `OWNER#${owner}` }, sk: { prefix: 'AUDIT#' } }),
  /** Where a graph run's next steps page starts (the run is the caller's: checked before). */
  steps: (runId: string): TokenShape => ({ pk: { equals: `RUN#${runId}` }, sk: { prefix: 'STEP#' } }),
  humanTasks: (owner: string): TokenShape => ({
    pk: { prefix: 'RUN#' },
    sk: { prefix: 'HTK#' },
    gsi1pk: { equals: `OWNER#${owner}` },
    gsi1sk: { prefix: 'HTK#' },
  }),
  approvals: (owner: string): TokenShape => ({
    pk: { prefix: 'APR#' },
    sk: { equals: 'APR' },
    gsi1pk: { equals: `OWNER#${owner}` },
    gsi1sk: { prefix: 'APR#' },
  }),
};
