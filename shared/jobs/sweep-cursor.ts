/**
 * Where the scheduled jobs sweep goes on from. A sweep with a deadline may stop before it reached every grant;
 * so that the grants past that point are not always the ones left out, the sweep walks the grants in grant-id
 * order from just after the last grant a sweep fully handled, wrapping around at the end, and moves this cursor
 * after each grant it handled (one small item, `JOBSWEEP / CURSOR`).
 *
 * Before it sweeps a grant, the sweep marks it on the cursor (`inGrantId`), and the move past it clears the
 * mark. A sweep cut off mid-grant (Lambda's timeout) leaves the mark: the next sweep starts after that grant,
 * which is swept last, on the wrap-around. A grant whose own sweep outlasts the timeout is thus cut off at most
 * once per round of the grants, instead of every minute with every grant after it left out. Every step of a
 * grant's sweep is idempotent, so the part it did is kept and the rest is done on its next turn.
 *
 * Each move is conditional on the cursor's `rev` as this sweep last read or wrote it: a sweep that finds it
 * moved by another sweep running at the same time stops (the other one carries on from there), so two sweeps
 * never move it back and forth.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { StoreContext } from '../store/client.ts';
import { getItem } from '../store/reads.ts';
import * as z from '../zod.ts';
import type { GrantRef } from './grant-store.ts';
import { jobKeys } from './records.ts';

const SweepCursorSchema = z.object({
  /** The last grant a sweep fully handled (its sweep ended, well or with a recorded fault); none before the first. */
  afterGrantId: z.optional(z.string()),
  /** The grant a sweep went into and has not finished: still in it, or cut off there. */
  inGrantId: z.optional(z.string()),
  /** Moves so far: each move is conditional on the one before. */
  rev: z.number().check(z.int(), z.positive()),
  updatedAt: z.string(),
});
export type SweepCursor = z.infer<typeof SweepCursorSchema>;

/** The cursor as it is now (strongly consistent); undefined before the first sweep that handled a grant. */
export const readSweepCursor = (ctx: StoreContext): Promise<SweepCursor | undefined> =>
  getItem(ctx, jobKeys.sweepCursor(), SweepCursorSchema);

/** Where a sweep starts: after the grant a sweep did not finish, else after the last one handled. */
export const sweepStartAfter = (cursor: SweepCursor | undefined): string | undefined =>
  cursor?.inGrantId ?? cursor?.afterGrantId;

/**
 * Marks `grantId` as the grant a sweep is going into, before it sweeps it (the cursor stays after the last
 * grant handled). Answers the cursor written, or undefined when another sweep moved it meanwhile.
 */
export const markSweepCursor = (
  ctx: StoreContext,
  from: SweepCursor | undefined,
  grantId: string,
  at: string,
): Promise<SweepCursor | undefined> =>
  writeSweepCursor(ctx, from, {
    ...(from?.afterGrantId === undefined ? {} : { afterGrantId: from.afterGrantId }),
    inGrantId: grantId,
    rev: (from?.rev ?? 0) + 1,
    updatedAt: at,
  });

/**
 * Moves the cursor from `from` (as read or last written; undefined: none yet) to just after `grantId`, and
 * clears the mark of the grant a sweep was in. Answers the cursor written, or undefined when another sweep
 * moved it meanwhile (nothing written).
 */
export const moveSweepCursor = (
  ctx: StoreContext,
  from: SweepCursor | undefined,
  grantId: string,
  at: string,
): Promise<SweepCursor | undefined> =>
  writeSweepCursor(ctx, from, { afterGrantId: grantId, rev: (from?.rev ?? 0) + 1, updatedAt: at });

/** Writes `next` if the cursor is still `from` (by its `rev`; undefined: no cursor yet). */
async function writeSweepCursor(
  ctx: StoreContext,
  from: SweepCursor | undefined,
  next: SweepCursor,
): Promise<SweepCursor | undefined> {
  try {
    await ctx.doc.send(
      new PutCommand({
        TableName: ctx.table,
        Item: { ...jobKeys.sweepCursor(), ...next },
        ...(from
          ? {
              ConditionExpression: '#rev = :rev',
              ExpressionAttributeNames: { '#rev': 'rev' },
              ExpressionAttributeValues: { ':rev': from.rev },
            }
          : { ConditionExpression: 'attribute_not_exists(pk)' }),
      }),
    );
    return next;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}

/**
 * `grants` (in grant-id order, as the all-grants index answers them: a Query returns its items sorted by sort
 * key, in UTF-8 byte order, https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.KeyConditionExpressions.html)
 * starting after `afterGrantId` and wrapping around: every grant once. Grant ids are ASCII, so JavaScript's
 * string order is the index's. A cursor whose grant is gone still starts at the next id.
 */
export function rotatedGrants(grants: readonly GrantRef[], afterGrantId: string | undefined): GrantRef[] {
  if (afterGrantId === undefined) return [...grants];
  const start = grants.findIndex((grant) => grant.grantId > afterGrantId);
  return start <= 0 ? [...grants] : [...grants.slice(start), ...grants.slice(0, start)];
}
