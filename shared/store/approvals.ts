/** Approval reads: by id (strongly consistent), with its run in one request, and pending ones by owner (GSI). */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { type Approval, ApprovalSchema, type ApprovalStatus } from '../schemas/approval.ts';
import { type Run, RunSchema } from '../schemas/run.ts';
import { type WorkflowHead, WorkflowHeadSchema } from '../schemas/workflow-record.ts';
import { backOff } from './backoff.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import { keys } from './keys.ts';
import { getItem, type Page, queryIndexPage } from './reads.ts';
import { getRun } from './runs.ts';
import { TABLE_KEYS } from './table.ts';

export const getApproval = (ctx: StoreContext, approvalId: string) =>
  getItem(ctx, keys.approval(approvalId), ApprovalSchema);

/**
 * An approval and its run; `head` when the approval's workflow head was read in the same request (its `value`
 * undefined: there is no such head).
 */
export type ApprovalWithRun = {
  approval: Approval;
  run: Run | undefined;
  head?: { value: WorkflowHead | undefined };
};

/** Which workflow head the caller expects the approval to belong to (only which item to read alongside). */
export type HeadHint = { owner: string; workflowId: string };

/** BatchGetItem rounds before falling back to GetItem, and the full-jitter backoff between them. */
const UNPROCESSED_ROUNDS = 4;
const UNPROCESSED_BACKOFF = { baseMs: 25, capMs: 400 };
/** Keys one BatchGetItem request may ask for ("as many as 100 items": the API page cited below). */
export const BATCH_GET_MAX_KEYS = 100;

/**
 * The items of `itemKeys` that exist, read in BatchGetItem requests (at most 100 keys each), strongly consistent
 * like GetItem (`ConsistentRead` per table:
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html). Keys DynamoDB leaves
 * unprocessed (throttling, or the 16 MB a response holds) are asked again after an exponential backoff with
 * jitter, as that page recommends. Undefined when some are still unprocessed after that (a throttled table):
 * the caller reads one by one with GetItem, whose throttling the SDK's own retries handle.
 */
export async function batchGetItems(
  ctx: StoreContext,
  itemKeys: { pk: string; sk: string }[],
): Promise<Record<string, unknown>[] | undefined> {
  const found: Record<string, unknown>[] = [];
  for (let start = 0; start < itemKeys.length; start += BATCH_GET_MAX_KEYS) {
    let pending: Record<string, unknown>[] = itemKeys.slice(start, start + BATCH_GET_MAX_KEYS);
    for (let round = 1; pending.length > 0; round++) {
      if (round > UNPROCESSED_ROUNDS) return undefined;
      if (round > 1) await backOff(round, UNPROCESSED_BACKOFF);
      const response = await ctx.doc.send(
        new BatchGetCommand({ RequestItems: { [ctx.table]: { Keys: pending, ConsistentRead: true } } }),
      );
      found.push(...(response.Responses?.[ctx.table] ?? []));
      pending = (response.UnprocessedKeys?.[ctx.table]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return found;
}

const itemOf = (found: Record<string, unknown>[], key: { pk: string; sk: string }) =>
  found.find((i) => i.pk === key.pk && i.sk === key.sk);

/**
 * An approval and its run. With `runIdHint` (which run the caller expects; the approval's own `runId` decides)
 * both are read in one BatchGetItem request (`batchGetItems`), and with `headHint` the approval's workflow head
 * too; still unprocessed after its retries, one by one (and no head). A hint that names another run is ignored:
 * the approval's run is read on its own; a head hint that names another owner's or workflow's head is dropped
 * (no `head`: the caller reads the approval's own). Undefined when the approval does not exist.
 */
export async function getApprovalWithRun(
  ctx: StoreContext,
  approvalId: string,
  runIdHint?: string,
  headHint?: HeadHint,
): Promise<ApprovalWithRun | undefined> {
  if (runIdHint === undefined) return readOneByOne(ctx, approvalId);
  const approvalKey = keys.approval(approvalId);
  const runKey = keys.run(runIdHint);
  const headKey = headHint && keys.workflowHead(headHint.owner, headHint.workflowId);
  const found = await batchGetItems(ctx, headKey ? [approvalKey, runKey, headKey] : [approvalKey, runKey]);
  if (found === undefined) return readOneByOne(ctx, approvalId);
  const approvalItem = itemOf(found, approvalKey);
  if (!approvalItem) return undefined;
  const approval = decodeItem(ApprovalSchema, approvalItem);
  // The approval's own workflow decides: a head read for another is not this approval's.
  const ownHead = headKey && headHint.owner === approval.owner && headHint.workflowId === approval.workflowId;
  const headItem = ownHead ? itemOf(found, headKey) : undefined;
  const head = ownHead ? { head: { value: headItem && decodeItem(WorkflowHeadSchema, headItem) } } : {};
  if (approval.runId !== runIdHint) return { approval, run: await getRun(ctx, approval.runId), ...head };
  const runItem = itemOf(found, runKey);
  return { approval, run: runItem ? decodeItem(RunSchema, runItem) : undefined, ...head };
}

/**
 * A run and the approvals of `approvalIds` that exist and belong to it (in the order asked), read together:
 * one BatchGetItem request for up to 99 approvals (`batchGetItems`). Not a snapshot: a commit may land between
 * the items, so a writer fences on the run's revision and on each approval's status and task token.
 */
export async function getRunWithApprovals(
  ctx: StoreContext,
  runId: string,
  approvalIds: readonly string[],
): Promise<{ run: Run | undefined; approvals: Approval[] }> {
  const ids = [...new Set(approvalIds)];
  const runKey = keys.run(runId);
  const found = await batchGetItems(ctx, [runKey, ...ids.map((id) => keys.approval(id))]);
  if (found === undefined) {
    const [run, ...approvals] = await Promise.all([
      getRun(ctx, runId),
      ...ids.map((id) => getApproval(ctx, id)),
    ]);
    return {
      run: run as Run | undefined,
      approvals: ownApprovals(approvals as (Approval | undefined)[], runId),
    };
  }
  const runItem = itemOf(found, runKey);
  const approvals = ids.map((id) => {
    const item = itemOf(found, keys.approval(id));
    return item ? decodeItem(ApprovalSchema, item) : undefined;
  });
  return {
    run: runItem ? decodeItem(RunSchema, runItem) : undefined,
    approvals: ownApprovals(approvals, runId),
  };
}

const ownApprovals = (approvals: (Approval | undefined)[], runId: string): Approval[] =>
  approvals.filter((approval): approval is Approval => approval?.runId === runId);

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
