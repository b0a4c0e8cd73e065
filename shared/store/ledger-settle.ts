/**
 * A ledger row's settle in a commit: an Update of the settlement's fields (status, outcome, attempts, settledAt
 * and any other), conditional on the row being `pending`, so each row is settled exactly once. The fields its
 * `pending` create fixed (the call's identity: run, id, turn, tool, arguments' hash, idempotency) are not sent
 * again: the create is conditional on the row not existing, so they are never anything but what that create
 * wrote, and a settle that would say otherwise could only be wrong. A Put of the whole row sent them all again.
 * Update expressions: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
 */
import type { LedgerRow } from '../schemas/ledger.ts';
import { keys } from './keys.ts';
import { updateExpression } from './update-expression.ts';

/** What a row's `pending` create fixes for good; a settle writes every other field it has. */
const FIXED_AT_CREATE: ReadonlySet<string> = new Set<keyof LedgerRow>([
  'schemaVersion',
  'runId',
  'toolUseId',
  'turn',
  'tool',
  'argsHash',
  'idempotent',
  'idempotencyKey',
  'createdAt',
]);

/** The Update settling `row`, conditional on it being `pending` (a missing row fails the condition too). */
export function ledgerSettleUpdate(table: string, row: LedgerRow) {
  const settlement = Object.entries(row).filter(
    ([name, value]) => !FIXED_AT_CREATE.has(name) && value !== undefined,
  );
  const expression = updateExpression(settlement, {
    prefix: 's',
    condition: { names: { '#status': 'status' }, values: { ':pending': 'pending' } },
    // `#status` is also the condition's name; the condition's `:pending` is the status it must have.
    placeholders: { status: ['#status', ':status'] },
  });
  return {
    Update: {
      TableName: table,
      Key: keys.ledger(row.runId, row.toolUseId),
      UpdateExpression: expression.UpdateExpression,
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: expression.ExpressionAttributeNames,
      ExpressionAttributeValues: expression.ExpressionAttributeValues,
    },
  };
}
