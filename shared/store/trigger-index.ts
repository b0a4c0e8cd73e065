/**
 * The trigger index: one item per workflow whose trigger is a schedule or an event pattern, in one partition
 * per trigger type (`TRIGGERS#schedule`, `TRIGGERS#event`), sort key `<owner>#<workflowId>`. The local stack
 * enumerates it across owners to tick schedules and match events; on AWS, Scheduler and EventBridge hold the
 * same information. Only enabled, not deleted workflows are indexed.
 *
 * Every write may be fenced on the workflow head's revision (`headRev`): a ConditionCheck on the head item in the
 * same transaction, so the index only ever changes to the state of the head as it still is. A sync that read
 * an older head (a disable overtaken by an enable) fails with `TriggerIndexSupersededError` instead of undoing
 * the newer sync, whether that one put the item or deleted it (a condition on the index item itself could not
 * see a deletion).
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ConditionCheck.html
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { OwnerIdSchema } from '../schemas/common.ts';
import { EventTriggerSchema, ScheduleTriggerSchema } from '../schemas/trigger.ts';
import { WorkflowIdSchema } from '../schemas/workflow-record.ts';
import * as z from '../zod.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import { type ItemKey, keys } from './keys.ts';
import { queryAllItems } from './reads.ts';
import { transactRetryingConflicts } from './transact-retry.ts';

export const TRIGGER_INDEX_TYPES = ['schedule', 'event'] as const;
export type TriggerIndexType = (typeof TRIGGER_INDEX_TYPES)[number];

/** One indexed workflow: who owns it, its name and its (schedule or event) trigger. */
export const TriggerIndexEntrySchema = z.object({
  owner: OwnerIdSchema,
  workflowId: WorkflowIdSchema,
  name: z.string(),
  trigger: z.discriminatedUnion('type', [ScheduleTriggerSchema, EventTriggerSchema]),
});
export type TriggerIndexEntry = z.infer<typeof TriggerIndexEntrySchema>;

/** Key of a workflow's index item in the partition of one trigger type. */
export const triggerIndexKey = (type: TriggerIndexType, owner: string, workflowId: string): ItemKey => ({
  pk: `TRIGGERS#${type}`,
  sk: `${owner}#${workflowId}`,
});

/** The head moved on since the sync read it: its own sync (or a later one) brings the index in line. */
export class TriggerIndexSupersededError extends Error {
  constructor(workflowId: string, headRev: number, options?: { cause?: unknown }) {
    super(`workflow ${workflowId}: the head is no longer at revision ${headRev}`, options);
    this.name = 'TriggerIndexSupersededError';
  }
}

type IndexWrite = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/** The head of the workflow still exists at revision `headRev` (0: a head stored without `rev`). */
const headAt = (ctx: StoreContext, owner: string, workflowId: string, headRev: number): IndexWrite => ({
  ConditionCheck: {
    TableName: ctx.table,
    Key: keys.workflowHead(owner, workflowId),
    ConditionExpression:
      headRev === 0
        ? 'attribute_exists(pk) AND (attribute_not_exists(rev) OR rev = :rev)'
        : 'attribute_exists(pk) AND rev = :rev',
    ExpressionAttributeValues: { ':rev': headRev },
  },
});

async function writeIndex(
  ctx: StoreContext,
  owner: string,
  workflowId: string,
  items: IndexWrite[],
  headRev: number | undefined,
): Promise<void> {
  const fenced = headRev === undefined ? items : [...items, headAt(ctx, owner, workflowId, headRev)];
  try {
    // The head item is also checked by run commits (the live policy) and written by head changes: a transaction
    // in flight on it cancels this one with TransactionConflict, which is sent again a few times first.
    await transactRetryingConflicts(ctx, fenced);
  } catch (error) {
    const reasons = error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
    if (headRev !== undefined && reasons[items.length]?.Code === 'ConditionalCheckFailed')
      throw new TriggerIndexSupersededError(workflowId, headRev, { cause: error });
    throw error;
  }
}

/**
 * Writes a workflow's index item and, in the same transaction, removes it from the other type's partition
 * (a new version may switch a workflow from a schedule to an event trigger). With `headRev`, only while the
 * head is at that revision (`TriggerIndexSupersededError` otherwise).
 */
export async function putTriggerIndex(
  ctx: StoreContext,
  entry: TriggerIndexEntry,
  headRev?: number,
): Promise<void> {
  const type = entry.trigger.type;
  const other: TriggerIndexType = type === 'schedule' ? 'event' : 'schedule';
  await writeIndex(
    ctx,
    entry.owner,
    entry.workflowId,
    [
      {
        Put: {
          TableName: ctx.table,
          Item: { ...triggerIndexKey(type, entry.owner, entry.workflowId), ...entry },
        },
      },
      { Delete: { TableName: ctx.table, Key: triggerIndexKey(other, entry.owner, entry.workflowId) } },
    ],
    headRev,
  );
}

/**
 * Removes a workflow from the index (both partitions); removing what is not there is not an error. With
 * `headRev`, only while the head is at that revision (`TriggerIndexSupersededError` otherwise).
 */
export async function deleteTriggerIndex(
  ctx: StoreContext,
  owner: string,
  workflowId: string,
  headRev?: number,
): Promise<void> {
  await writeIndex(
    ctx,
    owner,
    workflowId,
    TRIGGER_INDEX_TYPES.map((type) => ({
      Delete: { TableName: ctx.table, Key: triggerIndexKey(type, owner, workflowId) },
    })),
    headRev,
  );
}

/** Every indexed workflow with a trigger of `type`, across owners (strongly consistent, pages through). */
export async function listTriggerIndex(
  ctx: StoreContext,
  type: TriggerIndexType,
): Promise<TriggerIndexEntry[]> {
  const items = await queryAllItems(ctx, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': `TRIGGERS#${type}` },
  });
  return items.map((item) => decodeItem(TriggerIndexEntrySchema, item));
}
