/**
 * DynamoDB request units by AWS's documented rules, from the items a request actually read or wrote, because
 * DynamoDB Local's `ConsumedCapacity` does not bill transactions as AWS does (4 audit items of 0.4–0.6 KB in
 * one TransactWriteItems: Local reports 2 WRU, AWS's rule gives 8). Pure: no SDK, no I/O.
 *
 * Reads (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html):
 * a strongly consistent read is 1 RRU per 4 KB of the item, rounded up; eventually consistent half that;
 * transactional twice. GetItem and each BatchGetItem item are rounded up one by one; a Query or Scan sums the
 * sizes of the items it read and rounds the sum up once. A read of an item that does not exist still consumes
 * one unit (half if eventually consistent).
 *
 * Writes (same page): 1 WRU per 1 KB of the item, rounded up; a Put that replaces an item and an Update count
 * the larger of the item before and after; a Delete the deleted item. A transaction performs "two underlying
 * reads or writes of every item in the transaction: one to prepare the transaction and one to commit"
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling),
 * so each of its items costs twice; a ConditionCheck is an item of the transaction too and is counted as a
 * transactional write of the checked item (TransactWriteItems reports write capacity only; the higher reading).
 *
 * Failed conditional writes (read-write-operations.html, same page): "`PutItem`, `UpdateItem`, and `DeleteItem`
 * operations allow conditional writes … If the expression evaluates to false, DynamoDB still consumes write
 * capacity units from the table. The amount of consumed write capacity units depends on the size of the item.
 * This item can be an existing item in the table or a new one you're attempting to create or update" (existing
 * 300 KB, new 310 KB: 310 KB). So a failed one costs the larger of the stored item and the item it would have
 * written, at least 1 WRU, and nothing on the indexes (nothing was written). An Update's would-be item is not
 * known without evaluating its expression: the stored item is taken (a lower bound for an update that grows
 * it). The page states no such rule for a canceled TransactWriteItems; `writeOutcome` (metered-command.ts)
 * keeps those apart.
 *
 * Indexes (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations.Writes):
 * a write adds, per global secondary index, a put of the projected item if it now has the index's keys, a
 * delete if it had them and no longer does, one write if they are unchanged, and a delete + a put if they
 * changed; an item without the index's keys is not in the index. Transactions propagate to GSIs after they
 * complete (transaction-apis.html#transaction-apis-txwriteitems), so index writes are standard, not doubled.
 */
import { billedItemBytes } from './item-bytes.ts';

export type Item = Record<string, unknown>;

/** A global secondary index; only ALL projections are modelled (the run table's, infra/constructs/run-table.ts). */
export type IndexShape = {
  name: string;
  partitionKey: string;
  sortKey?: string | undefined;
  projection: 'ALL';
};

export type ReadRequest = {
  kind: 'get' | 'batchGet' | 'query' | 'scan' | 'transactGet';
  consistent: boolean;
  /** Items read, one per requested key for get-like reads (`undefined` for a missing item). */
  items: readonly (Item | undefined)[];
};

export type WriteAction = {
  kind: 'put' | 'update' | 'delete' | 'check';
  /** The item as stored before the request (absent if there was none). */
  before?: Item | undefined;
  /** The item as stored after the request (absent after a delete, and for a check). */
  after?: Item | undefined;
};

export type WriteRequest = {
  transactional: boolean;
  actions: readonly WriteAction[];
  /**
   * A single-item conditional write whose condition was false: nothing was written; `after` is the item it
   * would have written (a Put's), if known.
   */
  conditionFailed?: boolean;
};

const KB = 1024;
const blocks = (bytes: number, size: number) => Math.max(1, Math.ceil(bytes / size));
const sizeOf = (item: Item | undefined) => (item ? billedItemBytes(item) : 0);

/** Read request units of one read request. */
export function readUnits(request: ReadRequest): number {
  const factor = request.kind === 'transactGet' ? 2 : request.consistent ? 1 : 0.5;
  if (request.kind === 'query' || request.kind === 'scan') {
    const total = request.items.reduce((sum, item) => sum + sizeOf(item), 0);
    return blocks(total, 4 * KB) * factor;
  }
  return request.items.reduce((sum, item) => sum + blocks(sizeOf(item), 4 * KB) * factor, 0);
}

const inIndex = (item: Item | undefined, index: IndexShape) =>
  item !== undefined &&
  item[index.partitionKey] !== undefined &&
  (index.sortKey === undefined || item[index.sortKey] !== undefined);

const sameIndexKeys = (a: Item, b: Item, index: IndexShape) =>
  a[index.partitionKey] === b[index.partitionKey] &&
  (index.sortKey === undefined || a[index.sortKey] === b[index.sortKey]);

/** Standard write units one action causes on one index (projection ALL: the index entry is the item). */
export function indexWriteUnits(action: WriteAction, index: IndexShape): number {
  if (action.kind === 'check') return 0;
  const { before, after } = action;
  const had = inIndex(before, index);
  const has = inIndex(after, index);
  if (had && has) {
    if (sameIndexKeys(before!, after!, index)) return blocks(Math.max(sizeOf(before), sizeOf(after)), KB);
    return blocks(sizeOf(before), KB) + blocks(sizeOf(after), KB);
  }
  if (had) return blocks(sizeOf(before), KB);
  if (has) return blocks(sizeOf(after), KB);
  return 0;
}

/** Write request units of one write request, base table and indexes. */
export function writeUnits(request: WriteRequest, indexes: readonly IndexShape[]): number {
  if (request.conditionFailed) {
    if (request.transactional) throw new Error('writeUnits: a transaction is canceled, not condition-failed');
    return request.actions.reduce(
      (sum, action) => sum + blocks(Math.max(sizeOf(action.before), sizeOf(action.after)), KB),
      0,
    );
  }
  const factor = request.transactional ? 2 : 1;
  let units = 0;
  for (const action of request.actions) {
    units += blocks(Math.max(sizeOf(action.before), sizeOf(action.after)), KB) * factor;
    for (const index of indexes) units += indexWriteUnits(action, index);
  }
  return units;
}
