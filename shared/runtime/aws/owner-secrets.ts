/**
 * Workflows' credential secrets (turn, deliver, graph-service, external), read with the owner's tagged role session
 * (credentials/owner-sessions.ts); without the role there is no way to read them, so none is read (fail
 * closed).
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { STSClient } from '@aws-sdk/client-sts';
import { ENV } from '../../../infra/constructs/env-names.ts';
import type { SecretsPort } from '../../core/ports.ts';
import { OWNER_TAG_KEY, ownerKey } from '../../credentials/owner-key.ts';
import { ownerSessions } from '../../credentials/owner-sessions.ts';
import { RecentOwners } from '../../credentials/recent-owners.ts';
import { secretsManagerSecrets } from '../../credentials/secrets-manager.ts';
import { recordAwsCallsFromEnv as recorded } from '../aws-call-recorder.ts';
import { systemClock } from '../clock.ts';
import { tracedClient } from '../tracing.ts';
import { awsClient } from './client.ts';
import { awsEnv } from './env.ts';

let secrets: SecretsPort | undefined;

export function ownerSecrets(): SecretsPort {
  if (secrets) return secrets;
  const env = awsEnv();
  const nowMs = () => systemClock.nowMs();
  const roleArn = env[ENV.credentialRoleArn];
  const reader = roleArn
    ? { roleArn, sessionFor: ownerSessions({ sts: awsClient(new STSClient({})), roleArn, nowMs }) }
    : undefined;
  // Rebuilt on demand: only the most recent owners' clients are kept (recent-owners.ts).
  const ownerClients = new RecentOwners<SecretsManagerClient>();
  secrets = secretsManagerSecrets({
    namePrefix: env[ENV.credentialSecretPrefix],
    nowMs,
    async clientFor(owner) {
      if (!reader) throw new Error(`${ENV.credentialRoleArn} is not set: credentials cannot be read`);
      let client = ownerClients.get(owner);
      if (!client) {
        // Recorded with the session it signs with, so the offline IAM check evaluates the reader role's policy.
        client = recorded(
          tracedClient(new SecretsManagerClient({ credentials: () => reader.sessionFor(owner) })),
          process.env,
          { roleArn: reader.roleArn, tags: { [OWNER_TAG_KEY]: ownerKey(owner) } },
        );
        ownerClients.set(owner, client);
      }
      return client;
    },
  });
  return secrets;
}
