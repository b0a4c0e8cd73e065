/**
 * WorkflowWrite's store: workflows, versions and the trigger index only (store/workflow-store.ts), so the
 * function bundles none of the run and job records. Every change is audited on the owner's workflow-change
 * chain and its heads signed with the KMS key when the CDK gives its ARN (audit-signing-key.ts). It is not
 * wrapped by `observeStore` (observed-store.ts): the observers report run reads and commits, and this
 * store has neither.
 */
import { ENV } from '../../../infra/constructs/env-names.ts';
import { kmsAnchorSigner } from '../../audit-signing/kms.ts';
import { WorkflowStore } from '../../store/workflow-store.ts';
import { storeFaultMetrics } from '../store-fault-metrics.ts';
import { handlerTelemetry } from '../telemetry.ts';
import { awsAuditSigningKey } from './audit-signing-key.ts';
import { awsClient } from './client.ts';
import { awsEnv } from './env.ts';

function build(): WorkflowStore {
  const kms = awsAuditSigningKey();
  const store = new WorkflowStore(
    { tableName: awsEnv()[ENV.tableName] },
    { ...(kms ? { signer: kmsAnchorSigner(kms) } : {}), faults: storeFaultMetrics(handlerTelemetry()) },
  );
  awsClient(store.ctx.doc);
  return store;
}

let store: WorkflowStore | undefined;

/** The function's workflow store, signing heads when the key is configured; built on first use. */
export function awsWorkflowStore(): WorkflowStore {
  store ??= build();
  return store;
}
