/**
 * Runs that finished deliverable (`done`, or `denied` and degraded) but have no delivery record: the stack was
 * killed between the Turn's commit and Deliver's. On AWS the execution goes on to Deliver by itself; locally
 * the execution died with the process, so the stack delivers these on start (docs/local-stack.md).
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { isDeliverable } from '../core/degraded.ts';
import { type Run, RunSchema } from '../schemas/run.ts';
import { decodeItem } from '../store/codec.ts';
import type { DynamoStore } from '../store/index.ts';

export async function listUndeliveredRuns(store: DynamoStore): Promise<Run[]> {
  const runs: Run[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await store.ctx.doc.send(
      new ScanCommand({
        TableName: store.ctx.table,
        FilterExpression: 'sk = :run AND #status IN (:done, :denied) AND attribute_not_exists(delivery)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':run': 'RUN', ':done': 'done', ':denied': 'denied' },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const run = decodeItem(RunSchema, item);
      if (isDeliverable(run)) runs.push(run);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return runs;
}
