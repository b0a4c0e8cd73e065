/**
 * Vitest global setup: one DynamoDB Local per test run (it takes ~3 s to start), with the table
 * created from the same definition the CDK stack uses. Tests read the endpoint from `inject('dynamodb')`.
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../shared/local/dynamodb-local.ts';
import { createTableInput } from '../../shared/store/table.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodb: { endpoint: string; tableName: string };
  }
}

export default async function setup(project: TestProject) {
  // Up to 3 minutes to start: the JVM's start is CPU-bound, and a loaded shared machine (load average 18 on 2
  // cores) took more than the default 30 s; the whole run waits on this one process, so waiting beats failing.
  const local = await startDynamoDbLocal({ startTimeoutMs: 180_000 });
  const tableName = 'wf-test';
  const client = new DynamoDBClient({
    endpoint: local.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  client.destroy();
  console.log(`[setup] DynamoDB Local on ${local.endpoint}, table ${tableName}`);
  project.provide('dynamodb', { endpoint: local.endpoint, tableName });
  return async () => {
    await local.stop();
  };
}
