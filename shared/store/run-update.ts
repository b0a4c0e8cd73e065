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
  const names: Record<string, string> = { '#rev': 'rev' };
  const values: Record<string, unknown> = { ':rev': run.rev };
  const set: string[] = [];
  const remove: string[] = [];
  let index = 0;
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (ITEM_KEY.has(name)) continue;
    const value = after[name];
    const was = before[name];
    // An undefined value is not stored (the document client's removeUndefinedValues): absent either way.
    if (value === undefined ? was === undefined : isDeepStrictEqual(value, was)) continue;
    // `#rev` is also the condition's name; the condition's `:rev` is the revision read, `:next` the new one.
    const [nameRef, valueRef] = name === 'rev' ? ['#rev', ':next'] : [`#a${index}`, `:a${index++}`];
    names[nameRef] = name;
    if (value === undefined) remove.push(nameRef);
    else {
      values[valueRef] = value;
      set.push(`${nameRef} = ${valueRef}`);
    }
  }
  const expression = [
    set.length > 0 ? `SET ${set.join(', ')}` : '',
    remove.length > 0 ? `REMOVE ${remove.join(', ')}` : '',
  ];
  return {
    Update: {
      TableName: table,
      Key: keys.run(run.runId),
      UpdateExpression: expression.filter((part) => part !== '').join(' '),
      ConditionExpression: '#rev = :rev',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}
