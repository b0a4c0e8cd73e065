/**
 * Repairs a pending anchor whose run's marker moved without it (anchor-group.ts explains why that cannot
 * happen through this module's writers; an older writer during a deploy, or a hand-edited table, could still do
 * it). Left alone, such an item would cancel every group that includes it, and so stall the owner's bursts:
 * - its run is anchored at its head or a later one: the item is deleted (nothing is lost);
 * - its run was anchored at an earlier head only: the item takes the marker as it is now (it still waits).
 * Both conditional on the item and the marker being what was read; anything else is left to the next round.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { OwnerAnchorSchema } from '../audit/index.ts';
import * as z from '../zod.ts';
import type { PendingAnchor } from './anchor-group.ts';
import type { StoreContext } from './client.ts';
import { keys } from './keys.ts';
import { getItem } from './reads.ts';

const MarkerSchema = z.object({ anchorSeq: z.number().check(z.int(), z.nonnegative()) });

/** The condition that the pending item is still the one a group read. */
const unchanged = (pending: PendingAnchor) => ({
  ConditionExpression:
    pending.marked === undefined
      ? 'runHeadSeq = :seq AND attribute_not_exists(marked)'
      : 'runHeadSeq = :seq AND marked = :marked',
  ExpressionAttributeValues: {
    ':seq': pending.runHeadSeq,
    ...(pending.marked === undefined ? {} : { ':marked': pending.marked }),
  },
});

/** Repairs `pending` (of `owner`) if its run's marker is no longer the one it recorded. */
export async function repairPendingAnchor(ctx: StoreContext, owner: string, pending: PendingAnchor) {
  const marker = await getItem(ctx, keys.ownerAnchorRun(owner, pending.runId), MarkerSchema);
  if (marker === undefined || marker.anchorSeq === pending.marked) return;
  const anchor = await getItem(ctx, keys.ownerAnchor(owner, marker.anchorSeq), OwnerAnchorSchema);
  if (anchor === undefined) return;
  const key = keys.ownerAnchorPending(owner, pending.runId);
  // A Put, not an Update, of the item as it is with the marker as it is now: the functions that anchor may put
  // and delete items, never update them (infra/constructs/table-access.ts).
  const repair =
    anchor.runHeadSeq >= pending.runHeadSeq
      ? { Delete: { TableName: ctx.table, Key: key, ...unchanged(pending) } }
      : {
          Put: {
            TableName: ctx.table,
            Item: { ...key, ...pending, marked: marker.anchorSeq },
            ...unchanged(pending),
          },
        };
  try {
    await ctx.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: ctx.table,
              Key: keys.ownerAnchorRun(owner, pending.runId),
              ConditionExpression: 'anchorSeq = :now',
              ExpressionAttributeValues: { ':now': marker.anchorSeq },
            },
          },
          repair,
        ],
      }),
    );
  } catch (error) {
    // Changed since it was read: the next round reads it again.
    if (!(error instanceof TransactionCanceledException)) throw error;
  }
}

/**
 * The pending items of a cancelled group that look stale: the condition on their run's marker failed while
 * their own item was still there, unchanged (its delete did not fail). A group that merely lost to another
 * one that anchored the same items fails on both, and repairs nothing.
 */
export function stalePendingOf(
  error: TransactionCanceledException,
  group: readonly PendingAnchor[],
  indexes: (i: number) => { marker: number; pending: number },
): PendingAnchor[] {
  const reasons = error.CancellationReasons ?? [];
  return group.filter((_, i) => {
    const { marker, pending } = indexes(i);
    return reasons[marker]?.Code === 'ConditionalCheckFailed' && reasons[pending]?.Code === 'None';
  });
}
