/** Creates the table in DynamoDB Local if it is not there yet (same definition as the CDK stack's). */
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import type { DynamoStore } from '../store/index.ts';
import { createTableInput } from '../store/table.ts';

export async function ensureTable(store: DynamoStore): Promise<void> {
  try {
    await store.ctx.doc.send(new DescribeTableCommand({ TableName: store.ctx.table }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    await store.ctx.doc.send(new CreateTableCommand(createTableInput(store.ctx.table)));
  }
}
