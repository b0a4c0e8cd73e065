import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, inject, it } from 'vitest';

describe('DynamoDB Local test setup', () => {
  it('serves the table created from the shared definition', async () => {
    const { endpoint, tableName } = inject('dynamodb');
    const client = new DynamoDBClient({
      endpoint,
      region: 'local',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    const table = await client.send(new DescribeTableCommand({ TableName: tableName }));
    expect(table.Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual([
      'gsi1',
      'gsi2',
    ]);
  });
});
