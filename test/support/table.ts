/** A fresh table on the run's DynamoDB Local, so test files running in parallel never share items. */
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { createTableInput } from '../../shared/store/table.ts';

export async function createOwnTable(prefix = 'wf-test'): Promise<{ endpoint: string; tableName: string }> {
  const { endpoint } = inject('dynamodb');
  const tableName = `${prefix}-${randomUUID().slice(0, 8)}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  client.destroy();
  return { endpoint, tableName };
}
