/**
 * Runs that have not ended, across owners: what the local stack resumes on start. A Scan is fine for a
 * single-machine table; on AWS, executions survive on their own and nothing needs resuming.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { type Run, RunSchema } from '../schemas/run.ts';
import { decodeItem } from '../store/codec.ts';
import type { DynamoStore } from '../store/index.ts';

export async function listActiveRuns(store: DynamoStore): Promise<Run[]> {
  const runs: Run[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await store.ctx.doc.send(
      new ScanCommand({
        TableName: store.ctx.table,
        FilterExpression: 'sk = :run AND #status IN (:pending, :running, :awaiting)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':run': 'RUN',
          ':pending': 'pending',
          ':running': 'running',
          ':awaiting': 'awaiting_approval',
        },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) runs.push(decodeItem(RunSchema, item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return runs;
}
