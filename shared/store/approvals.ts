/** Approval reads: by id (strongly consistent), with its run in one request, and pending ones by owner (GSI). */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { type Approval, ApprovalSchema, type ApprovalStatus } from '../schemas/approval.ts';
import { type Run, RunSchema } from '../schemas/run.ts';
import { backOff } from './backoff.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import { keys } from './keys.ts';
import { getItem, type Page, queryIndexPage } from './reads.ts';
import { getRun } from './runs.ts';
import { TABLE_KEYS } from './table.ts';

export const getApproval = (ctx: StoreContext, approvalId: string) =>
  getItem(ctx, keys.approval(approvalId), ApprovalSchema);

export type ApprovalWithRun = { approval: Approval; run: Run | undefined };

/** BatchGetItem rounds before falling back to GetItem, and the full-jitter backoff between them. */
const UNPROCESSED_ROUNDS = 4;
const UNPROCESSED_BACKOFF = { baseMs: 25, capMs: 400 };

/**
 * An approval and its run. With `runIdHint` (which run the caller expects; the approval's own `runId` decides)
 * both are read in one BatchGetItem request, strongly consistent like GetItem (`ConsistentRead` per table:
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html). Keys DynamoDB leaves
 * unprocessed are asked again after an exponential backoff with jitter, as that page recommends; still
 * unprocessed after that (a throttled table), the two are read one by one with GetItem, whose throttling the
 * SDK's own retries handle. A hint that names another run is ignored: the approval's run is read on its own.
 * Undefined when the approval does not exist.
 */
export async function getApprovalWithRun(
  ctx: StoreContext,
  approvalId: string,
  runIdHint?: string,
): Promise<ApprovalWithRun | undefined> {
  if (runIdHint === undefined) return readOneByOne(ctx, approvalId);
  const approvalKey = keys.approval(approvalId);
  const runKey = keys.run(runIdHint);
  const found: Record<string, unknown>[] = [];
  let pending: Record<string, unknown>[] = [approvalKey, runKey];
  for (let round = 1; pending.length > 0; round++) {
    if (round > UNPROCESSED_ROUNDS) return readOneByOne(ctx, approvalId);
    if (round > 1) await backOff(round, UNPROCESSED_BACKOFF);
    const response = await ctx.doc.send(
      new BatchGetCommand({ RequestItems: { [ctx.table]: { Keys: pending, ConsistentRead: true } } }),
    );
    found.push(...(response.Responses?.[ctx.table] ?? []));
    pending = (response.UnprocessedKeys?.[ctx.table]?.Keys ?? []) as Record<string, unknown>[];
  }
  const item = (key: { pk: string; sk: string }) => found.find((i) => i.pk === key.pk && i.sk === key.sk);
  const approvalItem = item(approvalKey);
  if (!approvalItem) return undefined;
  const approval = decodeItem(ApprovalSchema, approvalItem);
  if (approval.runId !== runIdHint) return { approval, run: await getRun(ctx, approval.runId) };
  const runItem = item(runKey);
  return { approval, run: runItem ? decodeItem(RunSchema, runItem) : undefined };
}

async function readOneByOne(ctx: StoreContext, approvalId: string): Promise<ApprovalWithRun | undefined> {
  const approval = await getApproval(ctx, approvalId);
  return approval && { approval, run: await getRun(ctx, approval.runId) };
}

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
