/**
 * Credentials from AWS Secrets Manager, resolved at dispatch time and cached per container with a TTL.
 * Only secrets under the runtime's name prefix may be referenced (the IAM policy says the same).
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CredentialRef, SecretsPort } from '../core/ports.ts';
import { CredentialError } from './errors.ts';
import { extractSecretValue } from './extract.ts';
import { Redactor } from './redactor.ts';

export type SecretsManagerOptions = {
  client: Pick<SecretsManagerClient, 'send'>;
  /** Secret names (or the name part of ARNs) must start with this, e.g. `wf/`. */
  namePrefix: string;
  ttlMs?: number;
  nowMs?: () => number;
};

const nameOf = (secret: string): string =>
  secret.startsWith('arn:') ? (secret.split(':secret:')[1] ?? '').replace(/-[A-Za-z0-9]{6}$/, '') : secret;

export function secretsManagerSecrets(options: SecretsManagerOptions): SecretsPort {
  const redactor = new Redactor();
  const cache = new Map<string, { value: string; at: number }>();
  const ttl = options.ttlMs ?? 5 * 60_000;
  const now = options.nowMs ?? (() => performance.timeOrigin + performance.now());
  return {
    async resolve(ref: CredentialRef) {
      if (!nameOf(ref.secret).startsWith(options.namePrefix)) {
        throw new CredentialError(
          ref.secret,
          `is outside the runtime's secret prefix '${options.namePrefix}'`,
        );
      }
      const cached = cache.get(ref.secret);
      let raw = cached && now() - cached.at < ttl ? cached.value : undefined;
      if (raw === undefined) {
        try {
          const response = await options.client.send(new GetSecretValueCommand({ SecretId: ref.secret }));
          raw = response.SecretString;
        } catch (cause) {
          throw new CredentialError(ref.secret, `could not be read (${(cause as Error).name})`, { cause });
        }
        if (raw === undefined) throw new CredentialError(ref.secret, 'has no string value');
        cache.set(ref.secret, { value: raw, at: now() });
      }
      const value = extractSecretValue(ref, raw);
      redactor.add(value);
      return value;
    },
    redact: (text) => redactor.redact(text),
  };
}
