/**
 * Pending-run markers: a run that would stay `pending` if its first start never happened and nothing started it
 * again (watchesStart) gets a small item, `PENDINGRUN#<hour created> / <createdAt>#<runId>`, which the
 * pending-runs sweep (shared/runs/pending-sweep.ts) reads, in its creation's transaction, and loses it in the
 * transaction of the commit that moves it out of `pending` (commit.ts), whoever makes it: its first turn, graph
 * advance or external start, a cancel, MarkFailed, or the sweep ending it unstarted. No request is added: both
 * ride on a transaction the run writes anyway. A marker whose run no sweep could decide (the sweep looks a day
 * back) is deleted by the table's TTL two days after its run's creation. TTL deletes are eventual, "typically
 * within two days of expiration", and an expired item not yet deleted "will still show up in reads, queries, and
 * scans"
 * (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTimeToLive.html,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html): the sweep never reads a marker that
 * old, so an expired one still present changes nothing.
 */
import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Run } from '../schemas/run.ts';
import * as z from '../zod.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import { keys } from './keys.ts';
import { TABLE_KEYS } from './table.ts';

/**
 * A marker's lifetime after its run's creation, in seconds: two days, past the day the pending-runs sweep looks
 * back (PENDING_SWEEP_LIMITS.lookbackHours plus minAgeMs, checked in test/runs/pending-sweep.test.ts), so TTL
 * never removes a marker the sweep could still decide.
 */
export const PENDING_MARKER_TTL_SECONDS = 2 * 86_400;

/** The epoch second (the table's TTL attribute) after which DynamoDB may delete the marker of a run created at `createdAt`. */
export const pendingMarkerExpiry = (createdAt: string): number =>
  Math.floor(Date.parse(createdAt) / 1000) + PENDING_MARKER_TTL_SECONDS;

/** The triggers whose runs are watched: started by the API, a schedule or an event (a run of its own, no parent). */
const WATCHED_TRIGGERS: ReadonlySet<Run['trigger']['type']> = new Set(['on_demand', 'schedule', 'event']);

/**
 * Whether the run carries a marker: an API start (with or without an Idempotency-Key), or a schedule's or an
 * event's (functions/start-run.ts). Without a key nothing else could find an API start again; with one, only a
 * repeat of the request would, and a caller that crashed or gave up never repeats it. A schedule's or an event's
 * run is found again only by a retry of its trigger: Lambda's two retries of the asynchronous invocation, or a
 * redrive from the trigger dead-letter queue (docs/event-triggers.md), and a trigger whose retries all failed
 * comes back only if someone redrives it. So all of them are watched (after the sweep ended the run, an API repeat
 * is answered that ended run, and a schedule's or an event's retry or redrive starts a new run in its place,
 * with a marker of its own: docs/api.md, docs/event-triggers.md). A delegated job's attempt is
 * found again by the jobs sweep, a graph's child run by its step's wait: neither carries a marker.
 */
export const watchesStart = (run: Run): boolean =>
  WATCHED_TRIGGERS.has(run.trigger.type) && run.parent === undefined;

/** Whether a change moves a run that carries a marker out of `pending` (its marker goes in the same transaction). */
export const leavesWatchedPending = (run: Run, next: Run): boolean =>
  run.status === 'pending' && next.status !== 'pending' && watchesStart(run);

/** The hour bucket (`YYYY-MM-DDTHH`, UTC) of an ISO time, as a marker's partition key holds it. */
export const hourOf = (iso: string): string => iso.slice(0, 13);

/** The marker's Put in the creation transaction: a new item, about 120 bytes, with its TTL. */
export const pendingMarkerPut = (table: string, run: Run) => ({
  Put: {
    TableName: table,
    Item: {
      ...keys.pendingRun(run.createdAt, run.runId),
      runId: run.runId,
      createdAt: run.createdAt,
      [TABLE_KEYS.ttlAttribute]: pendingMarkerExpiry(run.createdAt),
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** The marker's Delete in the commit that ends `pending`: unconditional, so a marker already removed is fine. */
export const pendingMarkerDelete = (table: string, run: Run) => ({
  Delete: { TableName: table, Key: keys.pendingRun(run.createdAt, run.runId) },
});

const PendingRunMarkerSchema = z.object({ runId: z.string(), createdAt: z.string() });
export type PendingRunMarker = z.infer<typeof PendingRunMarkerSchema>;

/**
 * The markers of runs created in `hour` (`YYYY-MM-DDTHH`) before `createdBefore` (ISO), oldest first. One
 * Query of the hour's partition (`sk < createdBefore`), strongly consistent, paged through.
 */
export async function listPendingRunMarkers(
  ctx: StoreContext,
  hour: string,
  createdBefore: string,
): Promise<PendingRunMarker[]> {
  const markers: PendingRunMarker[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const response = await ctx.doc.send(
      new QueryCommand({
        TableName: ctx.table,
        KeyConditionExpression: 'pk = :pk AND sk < :before',
        ExpressionAttributeValues: { ':pk': `PENDINGRUN#${hour}`, ':before': createdBefore },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of response.Items ?? []) markers.push(decodeItem(PendingRunMarkerSchema, item));
    startKey = response.LastEvaluatedKey;
  } while (startKey);
  return markers;
}

/** Removes a marker whose run no longer needs watching (its execution exists, or it left `pending`). */
export async function deletePendingRunMarker(ctx: StoreContext, marker: PendingRunMarker): Promise<void> {
  await ctx.doc.send(
    new DeleteCommand({ TableName: ctx.table, Key: keys.pendingRun(marker.createdAt, marker.runId) }),
  );
}
