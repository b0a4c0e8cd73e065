/** Approval reads: by id (strongly consistent) and pending ones by owner (GSI). */
import { type Approval, ApprovalSchema, type ApprovalStatus } from '../schemas/approval.ts';
import type { StoreContext } from './client.ts';
import { keys } from './keys.ts';
import { getItem, type Page, queryIndexPage } from './reads.ts';
import { TABLE_KEYS } from './table.ts';

export const getApproval = (ctx: StoreContext, approvalId: string) =>
  getItem(ctx, keys.approval(approvalId), ApprovalSchema);

export function listApprovals(
  ctx: StoreContext,
  query: { owner: string; status?: ApprovalStatus; limit?: number; nextToken?: string },
): Promise<Page<Approval>> {
  return queryIndexPage(
    ctx,
    TABLE_KEYS.byOwner,
    {
      pk: `OWNER#${query.owner}`,
      prefix: 'APR#',
      ...(query.status ? { status: query.status } : {}),
      limit: query.limit ?? 50,
      nextToken: query.nextToken,
    },
    ApprovalSchema,
  );
}
