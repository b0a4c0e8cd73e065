/**
 * Every run item matching a filter, across owners, page by page: what the local stack looks for on start. A Scan
 * is fine for a single-machine table; on AWS nothing scans runs.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { type Run, RunSchema } from '../schemas/run.ts';
import { decodeItem } from '../store/codec.ts';
import type { DynamoStore } from '../store/index.ts';

/** A condition on run items (`sk = RUN` is added) and its placeholders. */
export type RunFilter = {
  expression: string;
  names?: Record<string, string>;
  values: Record<string, unknown>;
};

export async function scanRuns(store: DynamoStore, filter: RunFilter): Promise<Run[]> {
  const runs: Run[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await store.ctx.doc.send(
      new ScanCommand({
        TableName: store.ctx.table,
        FilterExpression: `sk = :run AND (${filter.expression})`,
        ...(filter.names ? { ExpressionAttributeNames: filter.names } : {}),
        ExpressionAttributeValues: { ':run': 'RUN', ...filter.values },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) runs.push(decodeItem(RunSchema, item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return runs;
}
