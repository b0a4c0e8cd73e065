/**
 * Admission in the table. Every state change of a job moves the grant's counter item (`SLOTS`) in the same
 * transaction, conditional on the job's state, so a slot is taken or given back exactly once:
 * - `held` = running + queued, capped at concurrency + maxQueued on admission;
 * - `running` is capped at the live grant's concurrency when a queued job is promoted.
 * DynamoDB transactions: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html
 * (a transaction touching an item another transaction is writing is cancelled with `TransactionConflict`:
 * retried here with jittered backoff; a failed condition is `ConditionalCheckFailed` at its item's index).
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { StoreContext } from '../store/client.ts';
import { decodeItem } from '../store/codec.ts';
import { keys } from '../store/keys.ts';
import { decodeToken, encodeToken, getItem, InvalidPageTokenError } from '../store/reads.ts';
import { TABLE_KEYS } from '../store/table.ts';
import * as z from '../zod.ts';
import { storedJob } from './record-size.ts';
import { type JobRecord, JobRecordSchema, jobKeys, jobPrefixes } from './records.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
export type TransactResult = { ok: true } | { ok: false; codes: string[] };

const MAX_CONFLICT_ATTEMPTS = 40;

/** Runs a transaction; retries while it only lost to a concurrent one, then answers which conditions failed. */
export async function transact(ctx: StoreContext, items: TransactItem[]): Promise<TransactResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      await ctx.doc.send(new TransactWriteCommand({ TransactItems: items }));
      return { ok: true };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const codes = (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
      const conflictOnly = codes.includes('TransactionConflict') && !codes.includes('ConditionalCheckFailed');
      if (!conflictOnly || attempt >= MAX_CONFLICT_ATTEMPTS) return { ok: false, codes };
      await sleep(Math.random() * Math.min(200, 5 * 2 ** Math.min(attempt, 6)));
    }
  }
}

const T = (ctx: StoreContext) => ctx.table;

/** The next job number of a grant: an atomic counter, so numbers (and queue order) never repeat. */
export async function nextJobNumber(ctx: StoreContext, grantId: string): Promise<number> {
  const response = await ctx.doc.send(
    new UpdateCommand({
      TableName: T(ctx),
      Key: jobKeys.slots(grantId),
      UpdateExpression: 'ADD nextNumber :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(response.Attributes?.nextNumber);
}

export const getJobRecord = (ctx: StoreContext, grantId: string, n: number) =>
  getItem(ctx, jobKeys.job(grantId, n), JobRecordSchema);

const slotsUpdate = (
  ctx: StoreContext,
  grantId: string,
  deltas: { running?: number; queued?: number; held?: number },
  condition?: { attribute: 'held' | 'running'; below: number },
): TransactItem => {
  const entries = Object.entries(deltas).filter(([, delta]) => delta !== 0);
  return {
    Update: {
      TableName: T(ctx),
      Key: jobKeys.slots(grantId),
      UpdateExpression: `ADD ${entries.map(([name]) => `#${name} :${name}`).join(', ')}`,
      ExpressionAttributeNames: {
        ...Object.fromEntries(entries.map(([name]) => [`#${name}`, name])),
        ...(condition ? { '#limit': condition.attribute } : {}),
      },
      ExpressionAttributeValues: {
        ...Object.fromEntries(entries.map(([name, delta]) => [`:${name}`, delta])),
        ...(condition ? { ':below': condition.below } : {}),
      },
      ...(condition ? { ConditionExpression: 'attribute_not_exists(#limit) OR #limit < :below' } : {}),
    },
  };
};

/** What a job's write expects of the stored job: its state, its run, and (when given) its cancel request. */
type Expected = { state: JobRecord['state']; runId?: string; cancelRequested?: boolean };

const putJob = (ctx: StoreContext, job: JobRecord, expected?: Expected) => ({
  Put: {
    TableName: T(ctx),
    // Its error texts capped, so a record admitted under its budget fits at every state (record-size.ts).
    Item: { ...jobKeys.job(job.grantId, job.number), ...storedJob(job) },
    ...(expected ? expectedCondition(expected) : { ConditionExpression: 'attribute_not_exists(pk)' }),
  },
});

function expectedCondition(expected: Expected) {
  const cancel = expected.cancelRequested;
  return {
    ConditionExpression: [
      '#state = :state',
      ...(expected.runId ? ['#runId = :runId'] : []),
      // A record from before the field reads as false (records.ts default).
      ...(cancel === undefined
        ? []
        : [`(${cancel ? '' : 'attribute_not_exists(#cancel) OR '}#cancel = :cancel)`]),
    ].join(' AND '),
    ExpressionAttributeNames: {
      '#state': 'state',
      ...(expected.runId ? { '#runId': 'runId' } : {}),
      ...(cancel === undefined ? {} : { '#cancel': 'cancelRequested' }),
    },
    ExpressionAttributeValues: {
      ':state': expected.state,
      ...(expected.runId ? { ':runId': expected.runId } : {}),
      ...(cancel === undefined ? {} : { ':cancel': cancel }),
    },
  };
}

/** Releases the coalescing marker of `job`, if it still holds it. */
const releaseRequest = (ctx: StoreContext, job: JobRecord): TransactItem => ({
  Delete: {
    TableName: T(ctx),
    Key: jobKeys.request(job.grantId, job.requestHash),
    ConditionExpression: 'attribute_not_exists(pk) OR jobId = :jobId',
    ExpressionAttributeValues: { ':jobId': job.jobId },
  },
});

export type AdmitOutcome = 'admitted' | 'full' | 'coalesce' | 'idempotent';

/**
 * Admits a new job as queued: counted against concurrency + maxQueued, queued under its number, marked as
 * the live job for its request hash (coalescing) and, with a key, for its Idempotency-Key (a week).
 */
export async function admitJob(
  ctx: StoreContext,
  job: JobRecord,
  cap: number,
  idempotencyTtlEpoch: number,
  /** Now, in epoch seconds: a key whose week ended before it no longer holds (idempotencyPut). */
  nowEpoch?: number,
): Promise<AdmitOutcome> {
  const pointer = { jobId: job.jobId, number: job.number, requestHash: job.requestHash };
  const items: TransactItem[] = [
    slotsUpdate(ctx, job.grantId, { held: 1, queued: 1 }, { attribute: 'held', below: cap }),
    putJob(ctx, job),
    { Put: { TableName: T(ctx), Item: { ...jobKeys.queued(job.grantId, job.number), ...pointer } } },
    {
      Put: {
        TableName: T(ctx),
        Item: { ...jobKeys.request(job.grantId, job.requestHash), ...pointer },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...(job.idempotencyKey
      ? [idempotencyPut(ctx, job.grantId, job.idempotencyKey, pointer, idempotencyTtlEpoch, nowEpoch)]
      : []),
  ];
  const result = await transact(ctx, items);
  if (result.ok) return 'admitted';
  if (result.codes[4] === 'ConditionalCheckFailed') return 'idempotent';
  if (result.codes[3] === 'ConditionalCheckFailed') return 'coalesce';
  if (result.codes[0] === 'ConditionalCheckFailed') return 'full';
  throw new Error(`job admission failed: ${result.codes.join(',')}`);
}

type JobPointer = { jobId: string; number: number; requestHash: string };

/**
 * The conditional put of an Idempotency-Key's pointer: only when the key holds no job, or held one whose week
 * is over (`expiresAtEpoch` before `nowEpoch`). TTL deletes an expired item only eventually, and reads and
 * condition checks see it until then
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ttl-expired-items.html), so the week is
 * checked here and on read (getIdempotencyPointer), as a run start's key is (shared/store/runs.ts).
 */
function idempotencyPut(
  ctx: StoreContext,
  grantId: string,
  key: string,
  pointer: JobPointer,
  expiresAtEpoch: number,
  nowEpoch: number | undefined,
) {
  return {
    Put: {
      TableName: T(ctx),
      Item: { ...jobKeys.idempotency(grantId, key), ...pointer, [TABLE_KEYS.ttlAttribute]: expiresAtEpoch },
      ...(nowEpoch === undefined
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: 'attribute_not_exists(pk) OR #expires < :now',
            ExpressionAttributeNames: { '#expires': TABLE_KEYS.ttlAttribute },
            ExpressionAttributeValues: { ':now': nowEpoch },
          }),
    },
  };
}

/**
 * Remembers Idempotency-Key `key` for `pointer`'s job, which answered it without being admitted for it (an
 * identical job was queued or running: coalescing), so the key answers that job for its week too. False when
 * the key already holds (a concurrent request with the same key got there first: read it).
 */
export async function rememberIdempotencyKey(
  ctx: StoreContext,
  grantId: string,
  key: string,
  pointer: JobPointer,
  window: { expiresAtEpoch: number; nowEpoch: number },
): Promise<boolean> {
  const result = await transact(ctx, [
    idempotencyPut(ctx, grantId, key, pointer, window.expiresAtEpoch, window.nowEpoch),
  ]);
  if (result.ok) return true;
  if (result.codes[0] === 'ConditionalCheckFailed') return false;
  throw new Error(`remembering the Idempotency-Key failed: ${result.codes.join(',')}`);
}

const PointerSchemaShape = z.pick(JobRecordSchema, { jobId: true, number: true, requestHash: true });

/** The job a coalescing marker points at. */
export const getRequestPointer = (ctx: StoreContext, grantId: string, hash: string) =>
  getItem(ctx, jobKeys.request(grantId, hash), PointerSchemaShape);

/** The job an Idempotency-Key points at, while its week holds at `nowEpoch` (an expired key is no key). */
export async function getIdempotencyPointer(
  ctx: StoreContext,
  grantId: string,
  key: string,
  nowEpoch: number,
): Promise<JobPointer | undefined> {
  const response = await ctx.doc.send(
    new GetCommand({ TableName: T(ctx), Key: jobKeys.idempotency(grantId, key), ConsistentRead: true }),
  );
  const item = response.Item;
  if (!item) return undefined;
  const expires = item[TABLE_KEYS.ttlAttribute];
  if (typeof expires === 'number' && expires < nowEpoch) return undefined;
  return decodeItem(PointerSchemaShape, item);
}

/**
 * A queued job's pointer (`Q#<n>`): its number and, for a job waiting to retry, when it may start (`notBefore`,
 * written with the job's in the one transaction that queues it again: releaseSlot). Absent on a pointer written
 * before the field, so a reader that must know reads the job.
 */
export type QueuedPointer = { number: number; notBefore?: string };

/**
 * Up to `limit` queued jobs of a grant in number order (strongly consistent), after job `after` when given:
 * the next page of the queue. Sort key order is number order (`Q#` + 10 zero-padded digits).
 */
export async function queuedPointers(
  ctx: StoreContext,
  grantId: string,
  limit: number,
  after?: number,
): Promise<QueuedPointer[]> {
  const response = await ctx.doc.send(
    new QueryCommand({
      TableName: T(ctx),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `GRANT#${grantId}`, ':prefix': jobPrefixes.queued },
      ConsistentRead: true,
      Limit: limit,
      ...(after === undefined ? {} : { ExclusiveStartKey: jobKeys.queued(grantId, after) }),
    }),
  );
  return (response.Items ?? []).map((item) => ({
    number: Number(item.number),
    ...(typeof item.notBefore === 'string' ? { notBefore: item.notBefore } : {}),
  }));
}

/** The numbers of a grant's jobs holding a slot (strongly consistent). */
export async function activeNumbers(ctx: StoreContext, grantId: string): Promise<number[]> {
  const numbers: number[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const response = await ctx.doc.send(
      new QueryCommand({
        TableName: T(ctx),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `GRANT#${grantId}`, ':prefix': jobPrefixes.active },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    numbers.push(...(response.Items ?? []).map((item) => Number(item.number)));
    startKey = response.LastEvaluatedKey;
  } while (startKey);
  return numbers;
}

/**
 * 1 + the number of jobs queued ahead of job `n` that may start (strongly consistent): a job waiting for its
 * retry time (its pointer's `notBefore` after `now`) is not counted, since the jobs behind it start first
 * (lifecycle.ts promoteQueued). A pointer from before `notBefore` was written on it counts as ready.
 */
export async function queuePosition(
  ctx: StoreContext,
  grantId: string,
  n: number,
  now: string = new Date().toISOString(),
): Promise<number> {
  if (n <= 1) return 1;
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const response = await ctx.doc.send(
      new QueryCommand({
        TableName: T(ctx),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        // Count is of the items that pass the filter:
        // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.FilterExpression.html
        FilterExpression: 'attribute_not_exists(notBefore) OR notBefore <= :now',
        ExpressionAttributeValues: {
          ':pk': `GRANT#${grantId}`,
          ':from': jobPrefixes.queued,
          ':to': `${jobKeys.queued(grantId, n - 1).sk}`,
          ':now': now,
        },
        ConsistentRead: true,
        Select: 'COUNT',
        ExclusiveStartKey: startKey,
      }),
    );
    count += response.Count ?? 0;
    startKey = response.LastEvaluatedKey;
  } while (startKey);
  return 1 + count;
}

/** Promotes queued job `job` into a slot, if one is free under `quota`. */
export async function claimSlot(ctx: StoreContext, job: JobRecord, quota: number, next: JobRecord) {
  const result = await transact(ctx, [
    slotsUpdate(ctx, job.grantId, { running: 1, queued: -1 }, { attribute: 'running', below: quota }),
    {
      Delete: {
        TableName: T(ctx),
        Key: jobKeys.queued(job.grantId, job.number),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    putJob(ctx, next, { state: 'queued' }),
    { Put: { TableName: T(ctx), Item: { ...jobKeys.active(job.grantId, job.number), number: job.number } } },
  ]);
  if (result.ok) return 'claimed' as const;
  return result.codes[0] === 'ConditionalCheckFailed' ? ('full' as const) : ('lost' as const);
}

/**
 * Moves a job that holds a slot from `expected` to `next` (starting → running with its run id), only while
 * the stored job is as `expected` says (its cancel request too, when given).
 */
export async function updateActiveJob(
  ctx: StoreContext,
  next: JobRecord,
  expected: Expected,
): Promise<boolean> {
  return (await transact(ctx, [putJob(ctx, next, expected)])).ok;
}

/**
 * Gives the slot back: the job ends (`next.state` ended) or goes back to the queue for a retry. Only while
 * its cancel request is as `next` read it: a cancel marked since (markCancelRequested) fails this write, and
 * the settle that follows reads the mark (false: nothing written).
 */
export async function releaseSlot(
  ctx: StoreContext,
  next: JobRecord,
  expected: { state: JobRecord['state']; runId?: string },
): Promise<boolean> {
  const again = next.state === 'queued';
  const result = await transact(ctx, [
    slotsUpdate(ctx, next.grantId, again ? { running: -1, queued: 1 } : { running: -1, held: -1 }),
    putJob(ctx, next, { ...expected, cancelRequested: next.cancelRequested }),
    { Delete: { TableName: T(ctx), Key: jobKeys.active(next.grantId, next.number) } },
    again
      ? {
          Put: {
            TableName: T(ctx),
            Item: {
              ...jobKeys.queued(next.grantId, next.number),
              jobId: next.jobId,
              number: next.number,
              // The retry's time on the pointer too: the queue is read without reading each job (QueuedPointer).
              ...(next.notBefore ? { notBefore: next.notBefore } : {}),
            },
          },
        }
      : releaseRequest(ctx, next),
  ]);
  return result.ok;
}

/**
 * Marks the cancel request of a job holding a slot (its client cancelled it), only while the job is as `job`
 * says: `running` its run `job.runId`, so the settle of that run ends the job cancelled instead of queueing a
 * retry (retry.ts); or `starting`, so its start ends it cancelled instead of recording its run as running
 * (lifecycle.ts startJobRun). Answers whether the mark landed (false: the job moved on meanwhile; read it again).
 */
export async function markCancelRequested(ctx: StoreContext, job: JobRecord, at: string): Promise<boolean> {
  if (job.state !== 'running' && job.state !== 'starting') return false;
  const starting = job.state === 'starting';
  try {
    await ctx.doc.send(
      new UpdateCommand({
        TableName: T(ctx),
        Key: jobKeys.job(job.grantId, job.number),
        UpdateExpression: 'SET #cancel = :yes, #updatedAt = :at',
        ConditionExpression: starting ? '#state = :state' : '#state = :state AND #runId = :runId',
        ExpressionAttributeNames: {
          '#cancel': 'cancelRequested',
          '#updatedAt': 'updatedAt',
          '#state': 'state',
          ...(starting ? {} : { '#runId': 'runId' }),
        },
        ExpressionAttributeValues: {
          ':yes': true,
          ':at': at,
          ':state': job.state,
          ...(starting ? {} : { ':runId': job.runId }),
        },
      }),
    );
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** The idempotency marker of a job attempt's run (lifecycle.ts startJobRun creates the run under it). */
export type AttemptMarker = { owner: string; scope: string; key: string; expiresAtEpoch: number };

const AttemptMarkerSchema = z.object({ runId: z.string(), requestHash: z.string() });

/** What a marker holds when no run took it: a cancel ended the attempt before its run was created. */
export const CANCELLED_ATTEMPT_HASH = 'job-cancelled-before-its-run-started';

/**
 * Ends a `starting` job cancelled before its run was created (`next`: ended), only while it is still
 * `starting` with its cancel request marked, and takes its attempt's run marker in the same transaction, so
 * that run can never be created afterwards: a start that read the job before the cancel finds the marker taken
 * (the run store refuses the key: IdempotencyConflictError) and creates nothing. The slot goes back.
 * `ended`; `run` with the run's id when the run was created first (its marker holds it: record and cancel
 * it); `moved` when the job is no longer as read.
 * Condition on an item's attribute in a transaction:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html
 */
export async function endStartingJob(
  ctx: StoreContext,
  next: JobRecord,
  marker: AttemptMarker,
  nowEpoch: number,
): Promise<{ outcome: 'ended' } | { outcome: 'run'; runId: string } | { outcome: 'moved' }> {
  const markerKey = keys.idempotency(marker.owner, marker.scope, marker.key);
  const result = await transact(ctx, [
    slotsUpdate(ctx, next.grantId, { running: -1, held: -1 }),
    putJob(ctx, next, { state: 'starting', cancelRequested: true }),
    { Delete: { TableName: T(ctx), Key: jobKeys.active(next.grantId, next.number) } },
    releaseRequest(ctx, next),
    {
      Put: {
        TableName: T(ctx),
        Item: {
          ...markerKey,
          runId: '',
          requestHash: CANCELLED_ATTEMPT_HASH,
          [TABLE_KEYS.ttlAttribute]: marker.expiresAtEpoch,
        },
        // As the run store takes a marker (shared/store/runs.ts): free, or past its week.
        ConditionExpression: 'attribute_not_exists(pk) OR #expires < :now',
        ExpressionAttributeNames: { '#expires': TABLE_KEYS.ttlAttribute },
        ExpressionAttributeValues: { ':now': nowEpoch },
      },
    },
  ]);
  if (result.ok) return { outcome: 'ended' };
  if (result.codes[4] === 'ConditionalCheckFailed') {
    const held = await getItem(ctx, markerKey, AttemptMarkerSchema);
    if (held?.runId) return { outcome: 'run', runId: held.runId };
  }
  if (result.codes.includes('ConditionalCheckFailed')) return { outcome: 'moved' };
  throw new Error(`ending a cancelled job failed: ${result.codes.join(',')}`);
}

/** Ends a job that is still queued (cancelled, or refused by a revoked grant). */
export async function endQueuedJob(ctx: StoreContext, next: JobRecord): Promise<boolean> {
  const result = await transact(ctx, [
    slotsUpdate(ctx, next.grantId, { queued: -1, held: -1 }),
    {
      Delete: {
        TableName: T(ctx),
        Key: jobKeys.queued(next.grantId, next.number),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    putJob(ctx, next, { state: 'queued' }),
    releaseRequest(ctx, next),
  ]);
  return result.ok;
}

/** A job's key as a page token holds it: `JOB#` and the zero-padded number (records.ts `jobKeys.job`). */
const JOB_SK = /^JOB#\d{10}$/;

/**
 * The start key a page token decodes to, when it is one this listing issued for `grantId`: exactly `{ pk, sk }`,
 * that grant's pk and a job's sk. Anything else (another grant's key, another item's sk, a number, an extra
 * attribute) is InvalidPageTokenError (400 naming `nextToken`), never a query DynamoDB refuses with a 500.
 */
function jobPageKey(
  grantId: string,
  key: Record<string, unknown> | undefined,
): { pk: string; sk: string } | undefined {
  if (!key) return undefined;
  const names = Object.keys(key);
  const exact = names.length === 2 && names.includes('pk') && names.includes('sk');
  if (!exact || key.pk !== `GRANT#${grantId}` || typeof key.sk !== 'string' || !JOB_SK.test(key.sk))
    throw new InvalidPageTokenError();
  return { pk: key.pk, sk: key.sk };
}

/** One page of a grant's jobs, newest first. */
export async function listJobRecords(
  ctx: StoreContext,
  grantId: string,
  limit: number,
  nextToken: string | undefined,
): Promise<{ jobs: JobRecord[]; nextToken?: string }> {
  const startKey = jobPageKey(grantId, decodeToken(nextToken));
  const response = await ctx.doc.send(
    new QueryCommand({
      TableName: T(ctx),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `GRANT#${grantId}`, ':prefix': jobPrefixes.job },
      ScanIndexForward: false,
      Limit: limit,
      ExclusiveStartKey: startKey,
    }),
  );
  const token = encodeToken(response.LastEvaluatedKey);
  const jobs = (response.Items ?? []).map((item) => JobRecordSchema.parse(item));
  return { jobs, ...(token ? { nextToken: token } : {}) };
}
