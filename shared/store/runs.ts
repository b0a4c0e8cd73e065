/** Run creation (idempotent per trigger key) and run listings. */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { PreparedRun } from '../core/new-run.ts';
import { type Run, RunSchema, type RunStatus } from '../schemas/run.ts';
import { TABLE_KEYS } from '../store/table.ts';
import * as z from '../zod.ts';
import { auditItems } from './audit-items.ts';
import { backOff } from './backoff.ts';
import type { StoreContext } from './client.ts';
import { daySpendUpdate, graphSpendUpdate } from './day-spend-item.ts';
import {
  DayBudgetExceededError,
  GraphBudgetExceededError,
  IdempotencyConflictError,
  isSpendCeilingRefusal,
} from './errors.ts';
import { keys } from './keys.ts';
import { messageItems } from './message-items.ts';
import { pendingMarkerPut, watchesStart } from './pending-runs.ts';
import { getItem, type Page, queryIndexPage } from './reads.ts';
import { runItem } from './run-update.ts';
import { sealAuditInputs } from './seal.ts';
import { assertTransactionFits } from './transaction-limits.ts';

export type Idempotency = {
  /** What the key is unique within: `api`, `schedule:<workflowId>`, `event:<workflowId>`. */
  scope: string;
  key: string;
  /** Hash of the request, so a reused key with a different request is refused. */
  requestHash: string;
  /**
   * Epoch seconds after which the marker no longer holds: DynamoDB's TTL deletes it some time later, and
   * until then it is still read, so creation checks the time itself (`markerHolds`).
   */
  expiresAtEpoch: number;
  /**
   * The run the marker names that this creation takes the key over from: a schedule's or an event's run that
   * ended without ever starting (shared/runs/start-run.ts, a redriven trigger). The marker's Put is then
   * conditional on still naming that run (or on the key being free, as for any creation), so of two such
   * creations at once exactly one writes anything; the same transaction links that run to the new one
   * (`replacedBy`, replacedByUpdate). Absent: the key must be free.
   */
  replaces?: string;
};

const IdempotencyItemSchema = z.object({
  runId: z.string(),
  requestHash: z.string(),
  expiresAtEpoch: z.optional(z.number()),
});

/**
 * Whether a marker still holds at `nowEpoch`. TTL deletes an expired item only eventually ("typically within a
 * few days"), and reads and condition checks see it until then
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ttl-expired-items.html); an item is expired
 * once its TTL attribute is below the current epoch second
 * (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTimeToLive.html).
 */
const markerHolds = (marker: { expiresAtEpoch?: number | undefined }, nowEpoch: number): boolean =>
  marker.expiresAtEpoch === undefined || marker.expiresAtEpoch >= nowEpoch;

/** The epoch second a run is created at: its `createdAt`, from the clock port that prepared it. */
const epochSecondsOf = (run: Run): number => Math.floor(Date.parse(run.createdAt) / 1000);

/** Attempts of the creation transaction when it is cancelled only by conflicts with others in flight. */
const CREATE_ATTEMPTS = 4;
/** Full-jitter backoff between them (backoff.ts): at most 50, 100, 200 ms. */
const CONFLICT_BACKOFF = { baseMs: 25, capMs: 400 };

export type NewRun = PreparedRun;

/**
 * Writes a new run, its first transcript message and its first audit entries in one transaction, with an
 * optional idempotency marker (and, for an API, schedule or event start, a pending-run marker: pending-runs.ts)
 * and turn 0's budget reservation (core/first-reservation.ts: the run item holds it,
 * the day's counter and a graph child's graph run counter count it). A repeated key with the same request
 * returns the existing run instead (the run the marker names, which for a creation that replaces an ended run,
 * Idempotency.replaces, is the run another creation put in its place). A reservation a ceiling refuses never
 * fails the creation: the run is created without it, and turn 0 reserves for itself (and stops the run
 * `budget_exceeded`, visibly, when the day or the graph run has no room).
 */
export async function createRun(
  ctx: StoreContext,
  created: NewRun,
  idempotency?: Idempotency,
): Promise<{ run: Run; created: boolean }> {
  try {
    return await createOnce(ctx, created, idempotency);
  } catch (error) {
    if (!isSpendCeilingRefusal(error) || !created.firstReservation) throw error;
    const { firstReservation: _refused, ...without } = created;
    return createOnce(ctx, without, idempotency);
  }
}

/**
 * The condition of the idempotency marker's Put. A marker past its expiry that TTL has not deleted yet no longer
 * holds: a new run takes the key. A creation that replaces a run (Idempotency.replaces) also takes a marker that
 * still names that run, and only that one: the re-point is this Put itself, one action on the marker, since a
 * transaction may not target one item twice ("no two actions can target the same item. For example, you cannot
 * both ConditionCheck and Update the same item"), and a failed condition cancels the whole transaction ("either
 * all of them succeed, or all of them fail": nothing of the new run is written)
 * (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html).
 */
function markerCondition(idempotency: Idempotency, nowEpoch: number) {
  const free = 'attribute_not_exists(pk) OR #expires < :now';
  if (idempotency.replaces === undefined)
    return {
      ConditionExpression: free,
      ExpressionAttributeNames: { '#expires': TABLE_KEYS.ttlAttribute },
      ExpressionAttributeValues: { ':now': nowEpoch },
    };
  return {
    ConditionExpression: `${free} OR #runId = :replaces`,
    ExpressionAttributeNames: { '#expires': TABLE_KEYS.ttlAttribute, '#runId': 'runId' },
    ExpressionAttributeValues: { ':now': nowEpoch, ':replaces': idempotency.replaces },
  };
}

/**
 * The Update of the run a creation replaces (Idempotency.replaces): `replacedBy` names the new run, `rev` moves
 * on (a writer holding the ended run's earlier revision fails its condition rather than put the item back
 * without the link). Conditional on the run still being what start-run replaces (`failed` with
 * `ExecutionNotStarted`: shared/runs/start-run.ts, replaceable) and not linked yet: a link is never overwritten,
 * and a run that ended any other way never gets one. A failed condition cancels the whole transaction, the new
 * run with it (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html);
 * the marker's Put is another item, so the transaction targets each item once.
 */
function replacedByUpdate(table: string, replaces: string, by: string) {
  return {
    Update: {
      TableName: table,
      Key: keys.run(replaces),
      UpdateExpression: 'SET #replacedBy = :by, #rev = #rev + :one',
      ConditionExpression:
        '#status = :failed AND #error.#name = :notStarted AND attribute_not_exists(#replacedBy)',
      ExpressionAttributeNames: {
        '#replacedBy': 'replacedBy',
        '#rev': 'rev',
        '#status': 'status',
        '#error': 'error',
        '#name': 'name',
      },
      ExpressionAttributeValues: {
        ':by': by,
        ':one': 1,
        ':failed': 'failed',
        ':notStarted': 'ExecutionNotStarted',
      },
    },
  };
}

async function createOnce(
  ctx: StoreContext,
  created: NewRun,
  idempotency: Idempotency | undefined,
): Promise<{ run: Run; created: boolean }> {
  const first = created.firstReservation;
  const run: Run = first ? { ...created.run, reservation: first.reservation } : created.run;
  const { entries, audit } = sealAuditInputs(run, [...created.audit, ...(first?.audit ?? [])], run.createdAt);
  const stored: Run = { ...run, audit };
  const T = ctx.table;
  // Last, in this order: their indexes in the cancellation reasons tell a ceiling's refusal from the rest.
  const counters = [
    ...(first?.daySpend ? [daySpendUpdate(T, first.daySpend).item] : []),
    ...(first?.graphSpend ? [graphSpendUpdate(T, first.graphSpend).item] : []),
  ];
  const transact = [
    { Put: { TableName: T, Item: runItem(stored), ConditionExpression: 'attribute_not_exists(pk)' } },
    ...messageItems(created.firstMessage).map((item) => ({
      Put: { TableName: T, Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
    })),
    ...auditItems(run.runId, entries).map((item) => ({
      Put: { TableName: T, Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
    })),
    ...(idempotency
      ? [
          {
            Put: {
              TableName: T,
              Item: {
                ...keys.idempotency(run.owner, idempotency.scope, idempotency.key),
                runId: run.runId,
                requestHash: idempotency.requestHash,
                [TABLE_KEYS.ttlAttribute]: idempotency.expiresAtEpoch,
              },
              ...markerCondition(idempotency, epochSecondsOf(run)),
            },
          },
        ]
      : []),
    // A replacement links the run it replaces to itself in the same transaction (replacedByUpdate).
    ...(idempotency?.replaces === undefined ? [] : [replacedByUpdate(T, idempotency.replaces, run.runId)]),
    // An API, schedule or event start is watched by the pending-runs sweep (pending-runs.ts): one more item for
    // a keyed start, a schedule's or an event's (beside its idempotency marker), none for a keyless one (in the
    // idempotency marker's place). The transaction is checked against TransactWriteItems' limits all the same
    // (assertTransactionFits below).
    ...(watchesStart(stored) ? [pendingMarkerPut(T, stored)] : []),
    ...counters,
  ];
  assertTransactionFits(transact);
  for (let attempt = 1; ; attempt++) {
    try {
      await ctx.doc.send(new TransactWriteCommand({ TransactItems: transact }));
      return { run: stored, created: true };
    } catch (error) {
      const reasons = error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
      const failed = reasons.flatMap((reason, index) =>
        reason.Code === 'ConditionalCheckFailed' ? [index] : [],
      );
      // A conflict with another transaction in flight (not a failed condition) is worth another try, after a
      // jittered wait so the contenders do not meet again in lockstep
      // (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html).
      const conflictOnly =
        reasons.some((reason) => reason.Code === 'TransactionConflict') && failed.length === 0;
      if (conflictOnly && attempt < CREATE_ATTEMPTS) {
        await backOff(attempt, CONFLICT_BACKOFF);
        continue;
      }
      // Only counters refused: a ceiling (createRun creates the run without the reservation).
      const firstCounter = transact.length - counters.length;
      if (counters.length > 0 && failed.length > 0 && failed.every((index) => index >= firstCounter))
        throw first?.daySpend && failed[0] === firstCounter
          ? new DayBudgetExceededError(run.workflowId, first.reservation.day)
          : new GraphBudgetExceededError(run.parent?.runId ?? run.runId);
      return await settleCreateFailure(ctx, run, idempotency, error);
    }
  }
}

async function settleCreateFailure(
  ctx: StoreContext,
  run: Run,
  idempotency: Idempotency | undefined,
  error: unknown,
): Promise<{ run: Run; created: boolean }> {
  if (!(error instanceof TransactionCanceledException) || !idempotency) throw error;
  const marker = await getItem(
    ctx,
    keys.idempotency(run.owner, idempotency.scope, idempotency.key),
    IdempotencyItemSchema,
  );
  if (!marker || !markerHolds(marker, epochSecondsOf(run))) throw error;
  // A replacement whose marker still names the run it replaces lost to no other creation: its cancellation was
  // the link's condition (that run is linked already, or no longer ended unstarted) or conflicts that outlasted
  // the attempts. Answering the ended run would take the trigger as handled with nothing started.
  if (idempotency.replaces !== undefined && marker.runId === idempotency.replaces) throw error;
  if (marker.requestHash !== idempotency.requestHash)
    throw new IdempotencyConflictError(idempotency.key, marker.runId);
  const existing = await getItem(ctx, keys.run(marker.runId), RunSchema);
  if (!existing) throw error;
  return { run: existing, created: false };
}

export const getRun = (ctx: StoreContext, runId: string) => getItem(ctx, keys.run(runId), RunSchema);

export type RunListQuery = {
  owner: string;
  workflowId?: string;
  status?: RunStatus;
  limit?: number;
  nextToken?: string;
};

/** Runs newest first, by owner or by workflow (GSI, eventually consistent), optionally by status. */
export function listRuns(ctx: StoreContext, query: RunListQuery): Promise<Page<Run>> {
  return queryIndexPage(
    ctx,
    query.workflowId ? TABLE_KEYS.byWorkflow : TABLE_KEYS.byOwner,
    {
      pk: query.workflowId ? `WF#${query.owner}#${query.workflowId}` : `OWNER#${query.owner}`,
      prefix: 'RUN#',
      ...(query.status ? { status: query.status } : {}),
      limit: query.limit ?? 25,
      nextToken: query.nextToken,
    },
    RunSchema,
  );
}
