/** One page of a run's ledger rows, in tool-use order: the receipts listing (`GET /v1/runs/{id}/receipts`). */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type LedgerRow, LedgerRowSchema } from '../schemas/ledger.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import { keys, prefixes } from './keys.ts';
import { decodeToken, encodeToken, type Page } from './reads.ts';

export async function listLedgerPage(
  ctx: StoreContext,
  query: { runId: string; limit?: number; nextToken?: string | undefined },
): Promise<Page<LedgerRow>> {
  const response = await ctx.doc.send(
    new QueryCommand({
      TableName: ctx.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.run(query.runId).pk, ':prefix': prefixes.ledger },
      ConsistentRead: true,
      Limit: query.limit ?? 50,
      ExclusiveStartKey: decodeToken(query.nextToken),
    }),
  );
  const nextToken = encodeToken(response.LastEvaluatedKey);
  return {
    items: (response.Items ?? []).map((item) => decodeItem(LedgerRowSchema, item)),
    ...(nextToken ? { nextToken } : {}),
  };
}
