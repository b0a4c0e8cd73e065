/**
 * The approval functions' adapters: the signing keyring from Secrets Manager, the public URL of the pages,
 * and the task-token port that resumes the waiting execution. Shared by approval-http and request-approval.
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import { ENV } from '../../../infra/constructs/env-names.ts';
import type { KeyringSource } from '../../approvals/keyring-source.ts';
import { cachedKeyring } from '../../approvals/keyring-source.ts';
import { publicBaseUrlFrom } from '../../approvals-http/deps.ts';
import { sfnTaskTokens, type TaskTokensPort } from '../../approvals-http/task-tokens.ts';
import { SECRET_CACHE_TTL_MS } from '../../credentials/file-secrets.ts';
import { systemClock } from '../clock.ts';
import { awsClient } from './client.ts';
import { awsEnv } from './env.ts';
import { runtimeSecretReader } from './runtime-secrets.ts';

let keyring: KeyringSource | undefined;

/** The approval keyring, loaded (and so checked) before it is handed out. */
export async function awsKeyring(): Promise<KeyringSource> {
  if (!keyring) {
    const arn = awsEnv()[ENV.signingSecretArn];
    const read = runtimeSecretReader();
    keyring = cachedKeyring(
      async (force) => {
        if (!arn)
          throw new Error(`${ENV.signingSecretArn} is not set: approval links cannot be signed or checked`);
        return read(arn, force, 'approval keyring');
      },
      { maxAgeMs: SECRET_CACHE_TTL_MS, nowMs: () => systemClock.nowMs() },
    );
  }
  await keyring.get();
  return keyring;
}

/** The public base URL of the approval pages (`WF_APPROVAL_BASE_URL`). */
export function awsPublicBaseUrl(): string {
  const base = awsEnv()[ENV.approvalBaseUrl];
  if (!base)
    throw new Error(
      `${ENV.approvalBaseUrl} is not set: approval links need the public URL of the approval pages`,
    );
  return publicBaseUrlFrom(base);
}

let taskTokens: TaskTokensPort | undefined;

/** SendTaskSuccess/Failure; the port retries throttling itself, so the SDK must not multiply those retries. */
export function awsTaskTokens(): TaskTokensPort {
  taskTokens ??= sfnTaskTokens(awsClient(new SFNClient({ maxAttempts: 1 })));
  return taskTokens;
}
