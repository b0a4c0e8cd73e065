/**
 * The run store of the functions that do not sign audit heads: DynamoDB, observed by telemetry and tracing.
 * The signing functions (those that anchor runs or change workflows) use signing-store.ts or workflow-store.ts
 * instead, so KMS is loaded only there.
 */

import { ENV } from '../../../infra/constructs/env-names.ts';
import type { AnchorSigner } from '../../audit/index.ts';
import { DynamoStore } from '../../store/index.ts';
import { observeStore } from '../observed-store.ts';
import { storeFaultMetrics } from '../store-fault-metrics.ts';
import { handlerTelemetry } from '../telemetry.ts';
import { telemetryObserver } from '../telemetry-observers.ts';
import { tracingObserver } from '../tracing.ts';
import { awsClient } from './client.ts';
import { awsEnv } from './env.ts';

/** A store on the function's table; `signer` signs the owners' audit chain heads. */
export function buildStore(signer?: AnchorSigner): DynamoStore {
  // Logs, metrics and trace annotations come from what passes through the store.
  const store = observeStore(
    new DynamoStore(
      { tableName: awsEnv()[ENV.tableName] },
      { ...(signer ? { signer } : {}), faults: storeFaultMetrics(handlerTelemetry()) },
    ),
    telemetryObserver(handlerTelemetry()),
    tracingObserver,
  );
  awsClient(store.ctx.doc);
  return store;
}

let store: DynamoStore | undefined;

/** The function's store (heads unsigned), built on first use. */
export function awsStore(): DynamoStore {
  store ??= buildStore();
  return store;
}
