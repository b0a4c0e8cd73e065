/**
 * The single table's shape: one definition used by the CDK stack, DynamoDB Local and the tests,
 * so that what runs locally is what is deployed. Access patterns: docs/data-model.md.
 */
export const TABLE_KEYS = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Runs and approvals by owner; workflows are listed by owner on the base table. */
  byOwner: { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  /** Runs by workflow. */
  byWorkflow: { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  /** Items that DynamoDB may delete once expired (idempotency keys, event dedupe markers). */
  ttlAttribute: 'expiresAtEpoch',
} as const;

/** A `CreateTable` input, in the shape of the AWS SDK's `CreateTableCommandInput`, without an SDK import. */
export function createTableInput(tableName: string) {
  const { partitionKey, sortKey, byOwner, byWorkflow } = TABLE_KEYS;
  const gsi = (index: typeof byOwner | typeof byWorkflow) => ({
    IndexName: index.indexName,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: { ProjectionType: 'ALL' as const },
  });
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' as const },
      { AttributeName: sortKey, KeyType: 'RANGE' as const },
    ],
    AttributeDefinitions: [
      partitionKey,
      sortKey,
      byOwner.partitionKey,
      byOwner.sortKey,
      byWorkflow.partitionKey,
      byWorkflow.sortKey,
    ].map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
    GlobalSecondaryIndexes: [gsi(byOwner), gsi(byWorkflow)],
  };
}
