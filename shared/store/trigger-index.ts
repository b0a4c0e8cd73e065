/**
 * The trigger index: one item per workflow whose trigger is a schedule or an event pattern, in one partition
 * per trigger type (`TRIGGERS#schedule`, `TRIGGERS#event`), sort key `<owner>#<workflowId>`. The local stack
 * enumerates it across owners to tick schedules and match events; on AWS, Scheduler and EventBridge hold the
 * same information. Only enabled, not deleted workflows are indexed.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { OwnerIdSchema } from '../schemas/common.ts';
import { EventTriggerSchema, ScheduleTriggerSchema } from '../schemas/trigger.ts';
import { WorkflowIdSchema } from '../schemas/workflow-record.ts';
import * as z from '../zod.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import type { ItemKey } from './keys.ts';
import { queryAllItems } from './reads.ts';

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

/**
 * Writes a workflow's index item and, in the same transaction, removes it from the other type's partition
 * (a new version may switch a workflow from a schedule to an event trigger).
 */
export async function putTriggerIndex(ctx: StoreContext, entry: TriggerIndexEntry): Promise<void> {
  const type = entry.trigger.type;
  const other: TriggerIndexType = type === 'schedule' ? 'event' : 'schedule';
  await ctx.doc.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: ctx.table,
            Item: { ...triggerIndexKey(type, entry.owner, entry.workflowId), ...entry },
          },
        },
        { Delete: { TableName: ctx.table, Key: triggerIndexKey(other, entry.owner, entry.workflowId) } },
      ],
    }),
  );
}

/** Removes a workflow from the index (both partitions); removing what is not there is not an error. */
export async function deleteTriggerIndex(
  ctx: StoreContext,
  owner: string,
  workflowId: string,
): Promise<void> {
  await ctx.doc.send(
    new TransactWriteCommand({
      TransactItems: TRIGGER_INDEX_TYPES.map((type) => ({
        Delete: { TableName: ctx.table, Key: triggerIndexKey(type, owner, workflowId) },
      })),
    }),
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
