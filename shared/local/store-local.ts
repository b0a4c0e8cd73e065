/**
 * The local stack's store: DynamoDB Local (data on disk under the data directory, or in memory), or an
 * already running one, with the same table definition as the CDK stack.
 */
import { readFileSync } from 'node:fs';
import { localKeySigner } from '../audit-signing/index.ts';
import { recordAwsCalls, withFunctionName } from '../runtime/aws-call-recorder.ts';
import { createStoreContext } from '../store/client.ts';
import { DynamoStore } from '../store/index.ts';
import { durableLocalCommits } from './durable-commits.ts';
import { type DynamoDbLocal, startDynamoDbLocal } from './dynamodb-local.ts';
import type { LocalFiles } from './files.ts';
import type { LocalStackOptions } from './stack-options.ts';
import type { Closers } from './stack-parts.ts';
import { ensureTable } from './table.ts';

export async function startLocalStore(
  options: LocalStackOptions,
  files: LocalFiles,
  /** The audit signing key: signs every owner's chain heads. */
  auditPrivateKeyPath: string,
  closers: Closers,
): Promise<DynamoStore> {
  let dynamo: DynamoDbLocal | undefined;
  if (!options.dynamodbEndpoint) {
    dynamo = await startDynamoDbLocal(options.inMemory ? {} : { path: files.dynamodb });
    closers.push(() => dynamo?.stop());
  }
  // Every acknowledged transaction committed before the caller goes on (see durable-commits.ts).
  const storeContext = durableLocalCommits(
    createStoreContext({
      endpoint: options.dynamodbEndpoint ?? dynamo!.endpoint,
      tableName: options.tableName ?? 'wf-local',
    }),
  );
  const store = new DynamoStore(storeContext, {
    signer: localKeySigner(readFileSync(auditPrivateKeyPath, 'utf8')),
  });
  if (options.awsCalls) recordAwsCalls(store.ctx.doc, options.awsCalls);
  await withFunctionName('local', () => ensureTable(store));
  return store;
}
