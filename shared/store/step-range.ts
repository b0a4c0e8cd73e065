/**
 * A graph run's steps after one step on, read only as far as a page needs (GET /v1/runs/{id}/steps): step
 * items in key order, a Query at a time (each at most 1 MB:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.Pagination.html), until more than
 * `count` steps or at least `bytes` of them as stored (a step costs at least its stored size once sent) are
 * held, or the steps end. The caller checked the run is the caller's.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { itemBytes } from '../core/item-size.ts';
import { type GraphStep, GraphStepSchema } from '../schemas/graph-step.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import { keys, prefixes } from './keys.ts';

/** `more`: the run has steps after the last one given. */
export type StepRange = { steps: GraphStep[]; more: boolean };

export async function readStepRange(
  ctx: StoreContext,
  runId: string,
  from: { afterStepId?: string | undefined; count: number; bytes: number },
): Promise<StepRange> {
  const items: Record<string, unknown>[] = [];
  let readBytes = 0;
  let startKey: Record<string, unknown> | undefined =
    from.afterStepId === undefined ? undefined : keys.step(runId, from.afterStepId);
  do {
    const response = await ctx.doc.send(
      new QueryCommand({
        TableName: ctx.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.run(runId).pk, ':prefix': prefixes.step },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of response.Items ?? []) {
      items.push(item);
      readBytes += itemBytes(item);
    }
    startKey = response.LastEvaluatedKey;
  } while (startKey && items.length <= from.count && readBytes < from.bytes);
  const kept = items.slice(0, from.count);
  return {
    steps: kept.map((item) => decodeItem(GraphStepSchema, item)),
    more: startKey !== undefined || items.length > kept.length,
  };
}
