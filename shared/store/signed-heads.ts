/**
 * Signed heads (`OWNER#o / SIGNED#<anchors>#<changes>`): after an anchor or a workflow change, the owner's two
 * chain heads are signed with the audit signing key and stored. They live in the table for convenience, but
 * the table does not make them trustworthy: the signature does. A table writer can delete one, never forge one.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  type AnchorSigner,
  type ChainPoint,
  OwnerAnchorSchema,
  OwnerChangeSchema,
  type SignedHead,
  signHead,
} from '../audit/index.ts';
import * as z from '../zod.ts';
import type { StoreContext } from './client.ts';
import { keys, prefixes } from './keys.ts';
import { getItem, queryPrefix } from './reads.ts';

const AnchorHeadSchema = z.object({ anchor: OwnerAnchorSchema });
const ChangeHeadSchema = z.object({ change: OwnerChangeSchema });
const pointOf = (entry: { seq: number; hash: string } | undefined): ChainPoint =>
  entry ? { seq: entry.seq, hash: entry.hash } : null;
const lengthOf = (point: ChainPoint) => (point === null ? 0 : point.seq + 1);

/**
 * Signs the owner's current heads unless a signed head for exactly these heads exists. Returns what was
 * signed (or found). A signing fault throws: the heads stay committed and the next signing covers them.
 */
export async function signOwnerHeads(
  ctx: StoreContext,
  signer: AnchorSigner,
  owner: string,
  at: string,
): Promise<SignedHead | undefined> {
  const [anchorHead, changeHead] = await Promise.all([
    getItem(ctx, keys.ownerAnchorHead(owner), AnchorHeadSchema),
    getItem(ctx, keys.ownerChangeHead(owner), ChangeHeadSchema),
  ]);
  const anchors = pointOf(anchorHead?.anchor);
  const changes = pointOf(changeHead?.change);
  if (anchors === null && changes === null) return undefined;
  const key = keys.signedHead(owner, lengthOf(anchors), lengthOf(changes));
  const existing = await ctx.doc.send(
    new GetCommand({ TableName: ctx.table, Key: key, ConsistentRead: true }),
  );
  if (existing.Item) return undefined;
  const signed = await signHead(signer, { schemaVersion: 1, owner, signedAt: at, anchors, changes });
  try {
    await ctx.doc.send(
      new PutCommand({
        TableName: ctx.table,
        Item: { ...key, ...signed },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    // A concurrent signer signed the same heads first: one signed head per pair of heads is enough.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
  return signed;
}

/** The owner's signed heads in key order, as stored (not schema-checked: the verifier names a bad one). */
export const listSignedHeadItems = (ctx: StoreContext, owner: string): Promise<unknown[]> =>
  queryPrefix(ctx, keys.ownerChangeHead(owner).pk, prefixes.signedHead, z.unknown());
