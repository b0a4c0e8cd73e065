/**
 * The KMS key that signs the owners' audit chain heads: the CDK gives its ARN (and kms:Sign on it) only to
 * the functions that anchor runs or change workflows. Without the ARN heads are not signed.
 */
import { KMSClient } from '@aws-sdk/client-kms';
import { ENV } from '../../../infra/constructs/env-names.ts';
import type { KmsSend } from '../../audit-signing/kms.ts';
import { awsClient } from './client.ts';
import { awsEnv } from './env.ts';

/** The signing key's client and ARN, or undefined where the key is not configured. */
export function awsAuditSigningKey(): { client: KmsSend; keyArn: string } | undefined {
  const keyArn = awsEnv()[ENV.auditSigningKeyArn];
  return keyArn ? { client: awsClient(new KMSClient({})), keyArn } : undefined;
}
