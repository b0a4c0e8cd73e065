/**
 * Credentials from AWS Secrets Manager, resolved at dispatch time and cached per container with a TTL.
 * Two locks, either enough on its own: the application refuses any reference outside the owner's namespace
 * (`<namePrefix><ownerKey>/…`), and the read itself is made with a client for that owner (`clientFor`, on AWS
 * a role session tagged `wf-owner=<ownerKey>`, owner-sessions.ts) that IAM lets read only secrets tagged
 * with the same owner.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { CredentialRef, SecretsPort } from '../core/ports.ts';
import { CredentialError } from './errors.ts';
import { extractSecretValue } from './extract.ts';
import { assertOwnerSecret } from './owner-check.ts';
import { maxOwnersOf, OwnerRedactors } from './owner-redactors.ts';

export type SecretsManagerOptions = {
  /** The client that reads on behalf of `owner` (its role session); the same client for all in tests. */
  clientFor: (owner: string) => Promise<Pick<SecretsManagerClient, 'send'>>;
  /** Secret names (or the name part of ARNs) must start with this, then the owner's key, e.g. `wf/`. */
  namePrefix: string;
  ttlMs?: number;
  nowMs?: () => number;
  /** Owners whose values are held for redaction at once (owner-redactors.ts). @default MAX_REDACTION_OWNERS */
  maxRedactionOwners?: number;
};

/**
 * GetSecretValue errors no retry can help with: no such secret ("We can't find the resource that you asked
 * for"), the owner's role session may not read it (an untagged or foreign secret: "You do not have sufficient
 * access"), or a secret marked for deletion ("not valid for the current state of the resource")
 * (https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html#API_GetSecretValue_Errors,
 * https://docs.aws.amazon.com/secretsmanager/latest/apireference/CommonErrors.html). Throttling, internal
 * errors, DecryptionFailure (a KMS key that may be re-enabled) and the network stay retryable; the SDK names
 * its errors by these codes.
 */
const PERMANENT_READ_ERRORS: ReadonlySet<string> = new Set([
  'ResourceNotFoundException',
  'AccessDeniedException',
  'InvalidRequestException',
]);

export function secretsManagerSecrets(options: SecretsManagerOptions): SecretsPort {
  const now = options.nowMs ?? (() => performance.timeOrigin + performance.now());
  const redactors = new OwnerRedactors({ nowMs: now, ...maxOwnersOf(options) });
  // Keyed by owner and secret id: one owner's cached read is never served to another. Oldest read first, so
  // a read past the TTL is dropped from the front (the cache holds only reads of the last TTL).
  const cache = new Map<string, { value: string; at: number }>();
  const ttl = options.ttlMs ?? 5 * 60_000;
  const remember = (key: string, value: string) => {
    for (const [old, entry] of cache) {
      if (now() - entry.at < ttl) break;
      cache.delete(old);
    }
    cache.delete(key);
    cache.set(key, { value, at: now() });
  };
  return {
    async resolve(ref: CredentialRef) {
      assertOwnerSecret(options.namePrefix, ref);
      // Before the read: a value this port could not hold for redaction is not fetched, let alone handed out.
      redactors.admit(ref);
      const key = JSON.stringify([ref.owner, ref.secret]);
      const cached = cache.get(key);
      let raw = cached && now() - cached.at < ttl ? cached.value : undefined;
      if (raw === undefined) {
        let client: Pick<SecretsManagerClient, 'send'>;
        try {
          client = await options.clientFor(ref.owner);
        } catch (cause) {
          // The runtime's own role session (STS): not about this secret, may pass.
          throw new CredentialError(ref.secret, `could not be read (${(cause as Error).name})`, { cause });
        }
        try {
          const response = await client.send(new GetSecretValueCommand({ SecretId: ref.secret }));
          raw = response.SecretString;
        } catch (cause) {
          const name = (cause as Error).name;
          throw new CredentialError(ref.secret, `could not be read (${name})`, {
            cause,
            permanent: PERMANENT_READ_ERRORS.has(name),
          });
        }
        if (raw === undefined)
          throw new CredentialError(ref.secret, 'has no string value', { permanent: true });
        remember(key, raw);
      }
      const value = extractSecretValue(ref, raw);
      // Every hand-out, cached or read, is recorded: the redactor holds a value as long as it may be in use.
      redactors.add(ref, value);
      return value;
    },
    redact: (owner, text) => redactors.redact(owner, text),
  };
}
