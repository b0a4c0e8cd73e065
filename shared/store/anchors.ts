/**
 * The per-owner anchor chain: once a run's audit chain is final, its head is sealed into the owner's chain
 * (`OWNER#o / ANCHOR#seq`), fenced on the owner's chain head (`ANCHORHEAD`) and marked per run
 * (`ANCHORRUN#runId`, pointing at the run's latest anchor) so a retried anchor writes nothing twice. All three
 * in one transaction. A run whose chain grew after it was anchored (a graph run reopened by a step retry, a
 * cancel that closed its steps after the run ended) is anchored again at its later head.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { type OwnerAnchor, OwnerAnchorSchema, sealOwnerAnchor } from '../audit/index.ts';
import type { Run } from '../schemas/run.ts';
import { backOff } from './backoff.ts';
import type { StoreContext } from './client.ts';
import { keys, prefixes } from './keys.ts';
import { getItem, queryPrefix } from './reads.ts';

const HeadSchema = z.object({ anchor: OwnerAnchorSchema });
const MarkerSchema = z.object({ anchorSeq: z.number().int().nonnegative() });
const markerKey = (owner: string, runId: string) => ({ pk: `OWNER#${owner}`, sk: `ANCHORRUN#${runId}` });

/**
 * Runs of one owner that end at the same moment contend for the chain head, and each round only one wins.
 * Retrying at once makes them collide again (a burst of 40 endings failed half its anchors after 8 attempts);
 * exponential backoff with full jitter spreads them out
 * (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/). Worst case under 20 s of waiting,
 * inside every anchoring function's timeout; past it, the function fails and Step Functions retries it.
 */
const MAX_ATTEMPTS = 25;
const BACKOFF = { baseMs: 5, capMs: 1000 };

/** Anchors the run's current audit head into its owner's chain, once per head. Returns the anchor. */
export async function anchorRunHead(ctx: StoreContext, run: Run, at: string): Promise<OwnerAnchor> {
  const runHeadSeq = Math.max(0, run.audit.seq - 1);
  for (let attempt = 1; ; attempt++) {
    const marker = await getItem(ctx, markerKey(run.owner, run.runId), MarkerSchema);
    if (marker) {
      const existing = await getItem(ctx, keys.ownerAnchor(run.owner, marker.anchorSeq), OwnerAnchorSchema);
      // This head (or, from a stale read of the run, a later one) is anchored already.
      if (existing && existing.runHeadSeq >= runHeadSeq) return existing;
    }
    const head = await getItem(ctx, keys.ownerAnchorHead(run.owner), HeadSchema);
    const anchor = sealOwnerAnchor(head?.anchor, {
      owner: run.owner,
      at,
      runId: run.runId,
      runHeadSeq,
      runHead: run.audit.head,
    });
    try {
      await ctx.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: ctx.table,
                Item: { ...keys.ownerAnchor(run.owner, anchor.seq), ...anchor },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: ctx.table,
                Item: { ...keys.ownerAnchorHead(run.owner), anchor },
                ...(head
                  ? {
                      ConditionExpression: 'anchor.seq = :seq',
                      ExpressionAttributeValues: { ':seq': head.anchor.seq },
                    }
                  : { ConditionExpression: 'attribute_not_exists(pk)' }),
              },
            },
            {
              Put: {
                TableName: ctx.table,
                Item: { ...markerKey(run.owner, run.runId), anchorSeq: anchor.seq },
                // Moved on from the anchor read above only: two re-anchors of one head cannot both win.
                ...(marker
                  ? {
                      ConditionExpression: 'anchorSeq = :marked',
                      ExpressionAttributeValues: { ':marked': marker.anchorSeq },
                    }
                  : { ConditionExpression: 'attribute_not_exists(pk)' }),
              },
            },
          ],
        }),
      );
      return anchor;
    } catch (error) {
      // Another run of the same owner anchored first (or this one did, concurrently): wait, then read again.
      if (!(error instanceof TransactionCanceledException) || attempt >= MAX_ATTEMPTS) throw error;
      await backOff(attempt, BACKOFF);
    }
  }
}

/** The owner's anchors in order, as stored (not schema-checked: the verifier names a broken one). */
export const listOwnerAnchorItems = (ctx: StoreContext, owner: string): Promise<unknown[]> =>
  queryPrefix(ctx, `OWNER#${owner}`, prefixes.ownerAnchor, z.unknown());

/** The anchor of one run, if it was anchored. */
export async function getRunAnchor(
  ctx: StoreContext,
  owner: string,
  runId: string,
): Promise<OwnerAnchor | undefined> {
  const marker = await getItem(ctx, markerKey(owner, runId), MarkerSchema);
  return marker ? getItem(ctx, keys.ownerAnchor(owner, marker.anchorSeq), OwnerAnchorSchema) : undefined;
}
