/**
 * The run item's write in a commit: an Update of only the top-level attributes that differ between the item
 * as read (`run`, at its `rev`) and the item it moves to, conditional on that revision. The item it leaves is
 * the one a Put of the whole next item would have left: every attribute that changed is set, every attribute the
 * next revision no longer has is removed, and the others are, by the fence, still as they were read. A turn's
 * commit changes a handful of counters and leaves the rest of the item (trigger, input, index keys, names and
 * times) as it was: sent twice per turn as a Put, it made up most of what a turn sent to DynamoDB.
 *
 * On AWS an Update is charged by the larger of the item before and after it, like a Put of the whole item
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html), so this saves
 * request bytes and the work of building, signing and parsing them, not write units.
 * Update expressions: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
 * An expression string may be 4 KB (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-expression-parameters):
 * a run item has fewer than 50 top-level attributes, each `#aN = :aN, ` at most 16 characters here.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Run } from '../schemas/run.ts';
import { indexKeys, keys } from './keys.ts';
import { updateExpression } from './update-expression.ts';

/** The full run item with its keys, as stored. */
export function runItem(run: Run): Record<string, unknown> {
  return {
    ...keys.run(run.runId),
    ...indexKeys.runByOwner(run.owner, run.createdAt, run.runId),
    ...indexKeys.runByWorkflow(run.owner, run.workflowId, run.createdAt, run.runId),
    ...run,
  };
}

/** The table's key attributes: fixed for an item, never part of an Update expression. */
const ITEM_KEY = new Set(['pk', 'sk']);

/**
 * The Update moving the run item from `run` (as read, at `run.rev`) to `next`, fenced on `run.rev` exactly as
 * the Put it replaces was (`#rev = :rev`: a moved or missing item fails the condition). `next.rev` differs from
 * `run.rev`, so there is always something to set.
 */
export function runUpdate(table: string, run: Run, next: Run) {
  const before = runItem(run);
  const after = runItem(next);
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((name) => !ITEM_KEY.has(name))
    // An undefined value is not stored (the document client's removeUndefinedValues): absent either way.
    .filter((name) =>
      after[name] === undefined ? before[name] !== undefined : !isDeepStrictEqual(after[name], before[name]),
    );
  const expression = updateExpression(
    changed.map((name) => [name, after[name]] as const),
    {
      prefix: 'a',
      condition: { names: { '#rev': 'rev' }, values: { ':rev': run.rev } },
      // `#rev` is also the condition's name; the condition's `:rev` is the revision read, `:next` the new one.
      placeholders: { rev: ['#rev', ':next'] },
    },
  );
  return {
    Update: {
      TableName: table,
      Key: keys.run(run.runId),
      UpdateExpression: expression.UpdateExpression,
      ConditionExpression: '#rev = :rev',
      ExpressionAttributeNames: expression.ExpressionAttributeNames,
      ExpressionAttributeValues: expression.ExpressionAttributeValues,
    },
  };
}
