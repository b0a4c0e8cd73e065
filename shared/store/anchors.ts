/**
 * The per-owner anchor chain: once a run's audit chain is final, its head is sealed into the owner's chain
 * (`OWNER#o / ANCHOR#seq`), fenced on the owner's chain head (`ANCHORHEAD`) and marked per run
 * (`ANCHORRUN#runId`, pointing at the run's latest anchor) so a retried anchor writes nothing twice. All three
 * in one transaction. A run whose chain grew after it was anchored (a graph run reopened by a step retry, a
 * cancel that closed its steps after the run ended) is anchored again at its later head. A run that loses the
 * head to another run of its owner joins a group commit (anchor-group.ts) instead of queueing for the head.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  type OwnerAnchor,
  type OwnerAnchorInput,
  OwnerAnchorSchema,
  sealOwnerAnchor,
} from '../audit/index.ts';
import type { Run } from '../schemas/run.ts';
import * as z from '../zod.ts';
import {
  commitPendingGroup,
  leadsGroup,
  listPendingAnchors,
  markerCondition,
  registerPendingAnchor,
} from './anchor-group.ts';
import { backOff } from './backoff.ts';
import type { StoreContext } from './client.ts';
import { keys, prefixes } from './keys.ts';
import { getItem, queryPrefix } from './reads.ts';

const HeadSchema = z.object({ anchor: OwnerAnchorSchema });
const MarkerSchema = z.object({ anchorSeq: z.number().check(z.int(), z.nonnegative()) });

/**
 * Runs of one owner that end at the same moment contend for the chain head, and each round only one wins; a
 * loser's head is anchored by the next group commit, so a burst needs a few rounds, not one per run. Between
 * rounds, exponential backoff with full jitter spreads the contenders out
 * (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/). Worst case under 20 s of waiting,
 * inside every anchoring function's timeout; past it, the function fails and Step Functions retries it.
 */
const MAX_ATTEMPTS = 25;
const BACKOFF = { baseMs: 5, capMs: 1000 };

/** Anchors the run's current audit head into its owner's chain, once per head. Returns the anchor. */
export async function anchorRunHead(
  ctx: StoreContext,
  run: Run,
  at: string,
  // A caller answering within a deadline (the api's cancel) tries fewer rounds; once it lost one, its head is
  // registered, and the owner's next group commit anchors it if this call gives up.
  { maxAttempts = MAX_ATTEMPTS }: { maxAttempts?: number } = {},
): Promise<OwnerAnchor> {
  const input: OwnerAnchorInput = {
    owner: run.owner,
    at,
    runId: run.runId,
    runHeadSeq: Math.max(0, run.audit.seq - 1),
    runHead: run.audit.head,
  };
  // Set once this run lost a round: from then on it looks for pending heads (its own among them) to anchor.
  let grouping = false;
  for (let attempt = 1; ; attempt++) {
    const marker = await getItem(ctx, keys.ownerAnchorRun(run.owner, run.runId), MarkerSchema);
    if (marker) {
      const existing = await getItem(ctx, keys.ownerAnchor(run.owner, marker.anchorSeq), OwnerAnchorSchema);
      // This head (or, from a stale read of the run, a later one) is anchored already: by this run or a group.
      if (existing && existing.runHeadSeq >= input.runHeadSeq) return existing;
    }
    const head = (await getItem(ctx, keys.ownerAnchorHead(run.owner), HeadSchema))?.anchor;
    let alone = false;
    try {
      if (!grouping) {
        alone = true;
        return await anchorAlone(ctx, head, input, marker?.anchorSeq);
      }
      const pending = await listPendingAnchors(ctx, run.owner);
      // Its own head (or a later one, registered by a fresher call) waits: anchor it with the others.
      const position = pending.findIndex((p) => p.runId === run.runId && p.runHeadSeq >= input.runHeadSeq);
      if (position >= 0 && leadsGroup(position, attempt))
        return (await commitPendingGroup(ctx, run.owner, head, pending, run.runId))[0]!;
      if (position < 0) {
        // Not waiting any more: most likely a group anchored it since the marker was read. Read again.
        grouping = false;
        continue;
      }
    } catch (error) {
      // Another run of the same owner won the head (or this one did, concurrently): wait, then read again.
      if (alone) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        await registerQuietly(ctx, input, marker?.anchorSeq);
      }
      if (!(error instanceof TransactionCanceledException) || attempt >= maxAttempts) throw error;
      grouping = true;
    }
    await backOff(attempt, BACKOFF);
  }
}

/**
 * Registers the head for the next group commit. Cancelled when the marker moved (the next read finds this head
 * anchored) or a later head of the run waits already (a group anchors that one): either way, read again.
 */
async function registerQuietly(ctx: StoreContext, input: OwnerAnchorInput, marked: number | undefined) {
  try {
    await registerPendingAnchor(ctx, input, marked);
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
  }
}

/**
 * The uncontended path, as many requests as before group commit: the anchor, the head moved on from `head`,
 * the marker moved on from `marked` (two re-anchors of one head cannot both win), and the run's pending item
 * at this or an earlier head deleted with them (it would otherwise be anchored twice); if a later head of the
 * run is pending, this stale head is not anchored (cancelled: a group anchors the later one).
 */
async function anchorAlone(
  ctx: StoreContext,
  head: OwnerAnchor | undefined,
  input: OwnerAnchorInput,
  marked: number | undefined,
): Promise<OwnerAnchor> {
  const anchor = sealOwnerAnchor(head, input);
  await ctx.doc.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: ctx.table,
            Item: { ...keys.ownerAnchor(input.owner, anchor.seq), ...anchor },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: ctx.table,
            Item: { ...keys.ownerAnchorHead(input.owner), anchor },
            ...(head
              ? { ConditionExpression: 'anchor.seq = :seq', ExpressionAttributeValues: { ':seq': head.seq } }
              : { ConditionExpression: 'attribute_not_exists(pk)' }),
          },
        },
        {
          Put: {
            TableName: ctx.table,
            Item: { ...keys.ownerAnchorRun(input.owner, input.runId), anchorSeq: anchor.seq },
            ...markerCondition(marked),
          },
        },
        {
          Delete: {
            TableName: ctx.table,
            Key: keys.ownerAnchorPending(input.owner, input.runId),
            ConditionExpression: 'attribute_not_exists(pk) OR runHeadSeq <= :seq',
            ExpressionAttributeValues: { ':seq': input.runHeadSeq },
          },
        },
      ],
    }),
  );
  return anchor;
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
  const marker = await getItem(ctx, keys.ownerAnchorRun(owner, runId), MarkerSchema);
  return marker ? getItem(ctx, keys.ownerAnchor(owner, marker.anchorSeq), OwnerAnchorSchema) : undefined;
}
