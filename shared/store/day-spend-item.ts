/**
 * The updates of the spend counters inside a transaction: a workflow's day (`SPEND#…/DAY#…`) and a graph run's
 * (`RUN#<graph run>/BUDGET`, its child runs together), by a run's commit (commit.ts) and a run's creation with
 * turn 0's reservation (runs.ts). A positive change with a limit is conditional: the total after it stays at
 * most the limit.
 */
import type { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DaySpendChange, GraphSpendChange } from '../core/store-port.ts';
import { type ItemKey, keys } from './keys.ts';

type TransactItem = NonNullable<
  ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']
>[number];

type CounterChange = Pick<DaySpendChange, 'deltaUsd' | 'reservedDeltaUsd' | 'limitUsd'>;

/** The Update item of a workflow's day; `guarded` says whether it carries the ceiling's condition. */
export function daySpendUpdate(
  table: string,
  change: DaySpendChange,
): { item: TransactItem; guarded: boolean } {
  return counterUpdate(table, keys.daySpend(change.owner, change.workflowId, change.day), change);
}

/** The Update item of a graph run's counter; `guarded` as for the day's. */
export function graphSpendUpdate(
  table: string,
  change: GraphSpendChange,
): { item: TransactItem; guarded: boolean } {
  return counterUpdate(table, keys.graphSpend(change.graphRunId), change);
}

function counterUpdate(
  table: string,
  Key: ItemKey,
  { deltaUsd, reservedDeltaUsd = 0, limitUsd }: CounterChange,
): { item: TransactItem; guarded: boolean } {
  const guarded = deltaUsd > 0 && limitUsd !== undefined;
  return {
    guarded,
    item: {
      Update: {
        TableName: table,
        Key,
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
