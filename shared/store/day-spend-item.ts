/**
 * The update of a workflow's day-spend counter inside a transaction: a run's commit (commit.ts) and a run's
 * creation with turn 0's reservation (runs.ts). A positive change with a limit is conditional: the day's total
 * after it stays at most the limit.
 */
import type { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DaySpendChange } from '../core/store-port.ts';
import { keys } from './keys.ts';

type TransactItem = NonNullable<
  ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']
>[number];

/** The Update item; `guarded` says whether it carries the ceiling's condition. */
export function daySpendUpdate(
  table: string,
  change: DaySpendChange,
): { item: TransactItem; guarded: boolean } {
  const { owner, workflowId, day, deltaUsd, reservedDeltaUsd = 0, limitUsd } = change;
  const guarded = deltaUsd > 0 && limitUsd !== undefined;
  return {
    guarded,
    item: {
      Update: {
        TableName: table,
        Key: keys.daySpend(owner, workflowId, day),
        // `reservedUsd` is the part of `spentUsd` still reserved: what a waiting run may expect back.
        UpdateExpression: 'ADD spentUsd :delta, reservedUsd :reserved SET schemaVersion = :v',
        ...(guarded
          ? { ConditionExpression: 'attribute_not_exists(spentUsd) OR spentUsd <= :headroom' }
          : {}),
        ExpressionAttributeValues: {
          ':delta': deltaUsd,
          ':reserved': reservedDeltaUsd,
          ':v': 1,
          ...(guarded ? { ':headroom': limitUsd - deltaUsd } : {}),
        },
      },
    },
  };
}
