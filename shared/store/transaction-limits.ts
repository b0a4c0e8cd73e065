/**
 * The DynamoDB limits a write must respect, checked before it is sent so a write that can never succeed
 * fails at once with a named, non-retryable error instead of being retried forever:
 * - TransactWriteItems: at most 100 actions, and the aggregate size of the items at most 4 MB
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html);
 * - an item at most 400 KB, attribute names included
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html).
 */
import { DYNAMO_ITEM_LIMIT_BYTES, itemBytes } from '../core/item-size.ts';
import { TransactionTooLargeError } from '../core/store-errors.ts';

export const TRANSACTION_MAX_ITEMS = 100;
export const TRANSACTION_MAX_BYTES = 4 * 1024 * 1024;

type Attributes = Record<string, unknown> | undefined;
type Action = {
  Put?: { Item?: Attributes } | undefined;
  Update?: { Key?: Attributes; ExpressionAttributeValues?: Attributes } | undefined;
  ConditionCheck?: { Key?: Attributes } | undefined;
  Delete?: { Key?: Attributes } | undefined;
};

/** An upper bound of the item an action writes (an Update counts its key and every value it sets). */
function actionBytes(action: Action): number {
  if (action.Put?.Item) return itemBytes(action.Put.Item);
  if (action.Update)
    return itemBytes({ ...action.Update.Key, ...action.Update.ExpressionAttributeValues }) + 64;
  return itemBytes(action.ConditionCheck?.Key ?? action.Delete?.Key ?? {});
}

/** Throws `TransactionTooLargeError` unless the actions fit in one TransactWriteItems call. */
export function assertTransactionFits(actions: readonly Action[]): void {
  if (actions.length > TRANSACTION_MAX_ITEMS)
    throw new TransactionTooLargeError(`${actions.length} items (at most ${TRANSACTION_MAX_ITEMS})`);
  let total = 0;
  for (const [index, action] of actions.entries()) {
    const bytes = actionBytes(action);
    if (bytes > DYNAMO_ITEM_LIMIT_BYTES)
      throw new TransactionTooLargeError(
        `item ${index} is ${bytes} bytes (at most ${DYNAMO_ITEM_LIMIT_BYTES})`,
      );
    total += bytes;
  }
  if (total > TRANSACTION_MAX_BYTES)
    throw new TransactionTooLargeError(`${total} bytes in all (at most ${TRANSACTION_MAX_BYTES})`);
}
