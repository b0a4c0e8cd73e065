/**
 * Where the scheduled jobs sweep goes on from. A sweep with a deadline may stop before it reached every grant;
 * so that the grants past that point are not always the ones left out, the sweep walks the grants in grant-id
 * order from just after the last grant a sweep fully handled, wrapping around at the end, and moves this cursor
 * after each grant it handled (one small item, `JOBSWEEP / CURSOR`). A sweep cut off mid-way (Lambda's
 * timeout) loses at most the grant it was in: the next one starts there again (every step is idempotent).
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
  /** The last grant a sweep fully handled (its sweep ended, well or with a recorded fault). */
  afterGrantId: z.string(),
  /** Moves so far: each move is conditional on the one before. */
  rev: z.number().check(z.int(), z.positive()),
  updatedAt: z.string(),
});
export type SweepCursor = z.infer<typeof SweepCursorSchema>;

/** The cursor as it is now (strongly consistent); undefined before the first sweep that handled a grant. */
export const readSweepCursor = (ctx: StoreContext): Promise<SweepCursor | undefined> =>
  getItem(ctx, jobKeys.sweepCursor(), SweepCursorSchema);

/**
 * Moves the cursor from `from` (as read or last written; undefined: none yet) to just after `grantId`.
 * Answers the cursor written, or undefined when another sweep moved it meanwhile (nothing written).
 */
export async function moveSweepCursor(
  ctx: StoreContext,
  from: SweepCursor | undefined,
  grantId: string,
  at: string,
): Promise<SweepCursor | undefined> {
  const next: SweepCursor = { afterGrantId: grantId, rev: (from?.rev ?? 0) + 1, updatedAt: at };
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
