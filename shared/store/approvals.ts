/** Approval reads: by id (strongly consistent) and pending ones by owner (GSI). */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type Approval, ApprovalSchema, type ApprovalStatus } from '../schemas/approval.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import { keys } from './keys.ts';
import { decodeToken, encodeToken, getItem, type Page } from './reads.ts';
import { TABLE_KEYS } from './table.ts';

export const getApproval = (ctx: StoreContext, approvalId: string) =>
  getItem(ctx, keys.approval(approvalId), ApprovalSchema);

export async function listApprovals(
  ctx: StoreContext,
  query: { owner: string; status?: ApprovalStatus; limit?: number; nextToken?: string },
): Promise<Page<Approval>> {
  const index = TABLE_KEYS.byOwner;
  const response = await ctx.doc.send(
    new QueryCommand({
      TableName: ctx.table,
      IndexName: index.indexName,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      ...(query.status ? { FilterExpression: '#status = :status' } : {}),
      ExpressionAttributeNames: {
        '#pk': index.partitionKey,
        '#sk': index.sortKey,
        ...(query.status ? { '#status': 'status' } : {}),
      },
      ExpressionAttributeValues: {
        ':pk': `OWNER#${query.owner}`,
        ':prefix': 'APR#',
        ...(query.status ? { ':status': query.status } : {}),
      },
      ScanIndexForward: false,
      Limit: query.limit ?? 50,
      ExclusiveStartKey: decodeToken(query.nextToken),
    }),
  );
  const nextToken = encodeToken(response.LastEvaluatedKey);
  return {
    items: (response.Items ?? []).map((item) => decodeItem(ApprovalSchema, item)),
    ...(nextToken ? { nextToken } : {}),
  };
}
