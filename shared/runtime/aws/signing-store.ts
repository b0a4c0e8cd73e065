/**
 * The run store of the functions that anchor runs or change workflows (api, deliver, mark-failed, external, mcp,
 * jobs-sweep): the owners' chain heads are signed with the KMS key whose ARN the CDK gives only these functions
 * (and kms:Sign on it). Without the ARN heads are not signed, as in store.ts. WorkflowWrite, which changes workflows only,
 * signs through workflow-store.ts instead.
 */
import type { AnchorVerifier } from '../../audit/index.ts';
import { kmsAnchorSigner, kmsAnchorVerifier } from '../../audit-signing/kms.ts';
import type { DynamoStore } from '../../store/index.ts';
import { awsAuditSigningKey } from './audit-signing-key.ts';
import { buildStore } from './store.ts';

let built: { store: DynamoStore; auditVerifier: AnchorVerifier | undefined } | undefined;

function build() {
  const kms = awsAuditSigningKey();
  return {
    store: buildStore(kms ? kmsAnchorSigner(kms) : undefined),
    auditVerifier: kms ? kmsAnchorVerifier(kms) : undefined,
  };
}

/** The function's store, signing heads when the key is configured; built on first use. */
export function awsSigningStore(): DynamoStore {
  built ??= build();
  return built.store;
}

/** Checks signed audit heads with the KMS key's public key (undefined where the key is not configured). */
export function awsAuditVerifier(): AnchorVerifier | undefined {
  built ??= build();
  return built.auditVerifier;
}
