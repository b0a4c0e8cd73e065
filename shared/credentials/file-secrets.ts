/**
 * Credentials from a local secrets file (the local stand-in for Secrets Manager), through the same port,
 * the same owner check and the same per-owner redaction: `{ "wf/<ownerKey>/site-token": "value",
 * "wf/<ownerKey>/json-secret": { "token": "value" } }`. The file is re-read after `maxAgeMs` (like the TTL of
 * the Secrets Manager adapter), and at once when a name is not found (a secret just added).
 */
import { readFileSync } from 'node:fs';
import type { CredentialRef, SecretsPort } from '../core/ports.ts';
import { CredentialError } from './errors.ts';
import { extractSecretValue } from './extract.ts';
import { assertOwnerSecret } from './owner-check.ts';
import { maxOwnersOf, OwnerRedactors } from './owner-redactors.ts';
import { ttlCache } from './ttl-cache.ts';

export type FileSecretsOptions = {
  /** Credential secret names start with `<namePrefix><ownerKey>/`. @default 'wf/' */
  namePrefix?: string;
  /** How long a read of the file is used. @default 300_000 (as on AWS) */
  maxAgeMs?: number;
  nowMs?: () => number;
  /** Owners whose values are held for redaction at once (owner-redactors.ts). @default MAX_REDACTION_OWNERS */
  maxRedactionOwners?: number;
};

/** Default TTL of credential and signing-key caches, on AWS and locally: rotation is seen within this. */
export const SECRET_CACHE_TTL_MS = 5 * 60_000;

export function fileSecrets(path: string, options: FileSecretsOptions = {}): SecretsPort {
  const nowMs = options.nowMs ?? (() => performance.timeOrigin + performance.now());
  const redactors = new OwnerRedactors({ nowMs, ...maxOwnersOf(options) });
  const namePrefix = options.namePrefix ?? 'wf/';
  const file = ttlCache(
    async (): Promise<Record<string, unknown>> => {
      try {
        return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return {};
        throw new CredentialError(path, 'the local secrets file is not valid JSON');
      }
    },
    {
      maxAgeMs: options.maxAgeMs ?? SECRET_CACHE_TTL_MS,
      minRefreshIntervalMs: 0,
      nowMs,
    },
  );
  return {
    async resolve(ref: CredentialRef) {
      assertOwnerSecret(namePrefix, ref);
      redactors.admit(ref);
      let stored = (await file.get())[ref.secret];
      if (stored === undefined) stored = (await file.refresh())[ref.secret];
      if (stored === undefined)
        throw new CredentialError(ref.secret, `is not in the local secrets file ${path}`, {
          permanent: true,
        });
      const value = extractSecretValue(ref, typeof stored === 'string' ? stored : JSON.stringify(stored));
      redactors.add(ref, value);
      return value;
    },
    redact: (owner, text) => redactors.redact(owner, text),
  };
}
