/** The local scheduler's cursors, in DynamoDB Local, so a restart neither loses nor repeats a tick. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoStore } from '../store/index.ts';
import type { ScheduleCursorStore } from '../triggers/index.ts';

const key = (schedule: string) => ({ pk: 'LOCAL#SCHEDULE_CURSOR', sk: schedule });

export function dynamoCursorStore(store: DynamoStore): ScheduleCursorStore {
  return {
    async getCursor(schedule) {
      const response = await store.ctx.doc.send(
        new GetCommand({ TableName: store.ctx.table, Key: key(schedule), ConsistentRead: true }),
      );
      return typeof response.Item?.cursor === 'string' ? response.Item.cursor : undefined;
    },
    async setCursor(schedule, cursor) {
      await store.ctx.doc.send(
        new PutCommand({ TableName: store.ctx.table, Item: { ...key(schedule), cursor } }),
      );
    },
  };
}
