/** DynamoDB document client construction, once per container. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export type StoreConfig = {
  tableName: string;
  /** DynamoDB Local's endpoint; absent on AWS. */
  endpoint?: string;
  region?: string;
};

export type StoreContext = { doc: DynamoDBDocumentClient; table: string };

export function createStoreContext(config: StoreConfig): StoreContext {
  const client = new DynamoDBClient({
    ...(config.endpoint
      ? {
          endpoint: config.endpoint,
          region: config.region ?? 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : config.region
        ? { region: config.region }
        : {}),
  });
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { doc, table: config.tableName };
}

/** Maps SDK throttling to a named, retryable error; anything else passes through. */
export function isThrottle(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name ?? '';
  return ['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded'].includes(
    name,
  );
}
