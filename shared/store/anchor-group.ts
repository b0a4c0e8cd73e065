/**
 * Group commit of the owner anchor chain. Runs of one owner that end together contend for the chain head
 * (`ANCHORHEAD`) and only one wins each round. A run that loses registers its head as a pending item in the
 * owner's partition (`ANCHORPENDING#runId`: its own item, so registering contends with nobody), and whoever
 * wins the head next anchors the pending heads it finds (up to 33) in one transaction, each sealed onto the
 * previous one (the chain's format is unchanged: one entry per run head), and deletes their pending items.
 *
 * Why no head is anchored twice: a pending item is written only while its run's marker (`ANCHORRUN#runId`)
 * is still the one the run read (`marked`), and every transaction that moves a marker deletes that run's
 * pending item at the same or an earlier head (or fails, if a later head is pending). So while a pending item
 * exists its run is not anchored at that head, and a group conditions each marker on `marked`, as a run
 * anchoring alone conditions it on the marker it read. (A pending item that is stale all the same, from an older
 * writer, would cancel every group that includes it: anchor-repair.ts repairs it.)
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type OwnerAnchor, type OwnerAnchorInput, sealOwnerAnchor } from '../audit/index.ts';
import * as z from '../zod.ts';
import { repairPendingAnchor, stalePendingOf } from './anchor-repair.ts';
import type { StoreContext } from './client.ts';
import { keys, prefixes } from './keys.ts';
import { queryPrefix } from './reads.ts';
import { assertTransactionFits, TRANSACTION_MAX_ITEMS } from './transaction-limits.ts';

const PendingSchema = z.object({
  runId: z.string().check(z.minLength(1)),
  runHeadSeq: z.number().check(z.int(), z.nonnegative()),
  runHead: z.string(),
  at: z.string(),
  /** The run's marker (its latest anchor's seq) when it registered; absent if it had none. */
  marked: z.optional(z.number().check(z.int(), z.nonnegative())),
});
/** A run head waiting for the owner's next group commit. */
export type PendingAnchor = z.infer<typeof PendingSchema>;

/**
 * A group writes the head and, per anchor, the anchor, the run's marker and the deleted pending item: at most
 * 100 actions per TransactWriteItems (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html),
 * so 1 + 3 × 33. Each item is under 1 KB, far below the 4 MB aggregate (checked before sending all the same).
 */
const ITEMS_PER_ANCHOR = 3;
const MAX_GROUP = Math.floor((TRANSACTION_MAX_ITEMS - 1) / ITEMS_PER_ANCHOR);

/**
 * Whether a waiting run whose head is at `position` among the pending ones (in key order) tries to commit a
 * group now. Only the first LEADERS do: each of the first MAX_GROUP would commit the same group (its own head
 * plus the others of the first MAX_GROUP), so when they all tried, all but one sent a transaction of up to 100
 * actions bound to lose the head (npm run bench:load counts them). Two, not one, so a first head whose run is
 * gone (it crashed after registering, or its item is stale: anchor-repair.ts) does not stall the group: the
 * second commits it. The rest wait for a leader's group. Past FOLLOWER_PATIENCE attempts the leaders are twice
 * as many with each further attempt (4, 8, 16, …), so leaders that crashed or are slow never hold the others up
 * for long, and the followers do not all try at once (when they did, the load bench once measured a p95 / p50
 * of 3.60).
 */
export const leadsGroup = (position: number, attempt: number) =>
  position < LEADERS * 2 ** Math.max(0, attempt - FOLLOWER_PATIENCE);
const LEADERS = 2;
const FOLLOWER_PATIENCE = 8;

/** The condition on a run's marker: unchanged since it was read (`marked`), or still absent. */
export const markerCondition = (marked: number | undefined) =>
  marked === undefined
    ? { ConditionExpression: 'attribute_not_exists(pk)' }
    : { ConditionExpression: 'anchorSeq = :marked', ExpressionAttributeValues: { ':marked': marked } };

/**
 * Registers the run's head as pending, unless its marker moved since it was read or a later head of the run is
 * pending already (then the transaction is cancelled: the caller reads again). Replaces an earlier pending head.
 */
export async function registerPendingAnchor(
  ctx: StoreContext,
  input: OwnerAnchorInput,
  marked: number | undefined,
): Promise<void> {
  const pending: PendingAnchor = {
    runId: input.runId,
    runHeadSeq: input.runHeadSeq,
    runHead: input.runHead,
    at: input.at,
    ...(marked === undefined ? {} : { marked }),
  };
  await ctx.doc.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          ConditionCheck: {
            TableName: ctx.table,
            Key: keys.ownerAnchorRun(input.owner, input.runId),
            ...markerCondition(marked),
          },
        },
        {
          Put: {
            TableName: ctx.table,
            Item: { ...keys.ownerAnchorPending(input.owner, input.runId), ...pending },
            ConditionExpression: 'attribute_not_exists(pk) OR runHeadSeq < :seq',
            ExpressionAttributeValues: { ':seq': input.runHeadSeq },
          },
        },
      ],
    }),
  );
}

/** The owner's pending run heads (strongly consistent). */
export const listPendingAnchors = (ctx: StoreContext, owner: string): Promise<PendingAnchor[]> =>
  queryPrefix(ctx, `OWNER#${owner}`, prefixes.ownerAnchorPending, PendingSchema);

/**
 * Anchors up to MAX_GROUP pending heads after `head` in one transaction, `first` (a run id) first, fenced on
 * the head. Returns the anchors written, in chain order; a lost race throws TransactionCanceledException.
 */
export async function commitPendingGroup(
  ctx: StoreContext,
  owner: string,
  head: OwnerAnchor | undefined,
  pending: readonly PendingAnchor[],
  first: string,
): Promise<OwnerAnchor[]> {
  const ordered = [
    ...pending.filter((p) => p.runId === first),
    ...pending.filter((p) => p.runId !== first),
  ].slice(0, MAX_GROUP);
  const anchors: OwnerAnchor[] = [];
  let previous = head;
  for (const p of ordered) {
    previous = sealOwnerAnchor(previous, {
      owner,
      at: p.at,
      runId: p.runId,
      runHeadSeq: p.runHeadSeq,
      runHead: p.runHead,
    });
    anchors.push(previous);
  }
  const last = anchors.at(-1);
  if (last === undefined) return [];
  const actions = [
    {
      Put: {
        TableName: ctx.table,
        Item: { ...keys.ownerAnchorHead(owner), anchor: last },
        ...(head
          ? { ConditionExpression: 'anchor.seq = :seq', ExpressionAttributeValues: { ':seq': head.seq } }
          : { ConditionExpression: 'attribute_not_exists(pk)' }),
      },
    },
    ...ordered.flatMap((p, i) => groupActions(ctx, anchors[i]!, p)),
  ];
  assertTransactionFits(actions);
  try {
    await ctx.doc.send(new TransactWriteCommand({ TransactItems: actions }));
  } catch (error) {
    if (error instanceof TransactionCanceledException) {
      const indexes = (i: number) => ({
        marker: 2 + ITEMS_PER_ANCHOR * i,
        pending: 3 + ITEMS_PER_ANCHOR * i,
      });
      for (const stale of stalePendingOf(error, ordered, indexes))
        await repairPendingAnchor(ctx, owner, stale);
    }
    throw error;
  }
  return anchors;
}

/** One pending head's part of a group: its anchor, its marker moved on from `marked`, its pending item gone. */
const groupActions = (ctx: StoreContext, anchor: OwnerAnchor, pending: PendingAnchor) => [
  {
    Put: {
      TableName: ctx.table,
      Item: { ...keys.ownerAnchor(anchor.owner, anchor.seq), ...anchor },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  {
    Put: {
      TableName: ctx.table,
      Item: { ...keys.ownerAnchorRun(anchor.owner, anchor.runId), anchorSeq: anchor.seq },
      ...markerCondition(pending.marked),
    },
  },
  {
    Delete: {
      TableName: ctx.table,
      Key: keys.ownerAnchorPending(anchor.owner, anchor.runId),
      ConditionExpression: 'runHeadSeq = :seq',
      ExpressionAttributeValues: { ':seq': pending.runHeadSeq },
    },
  },
];
