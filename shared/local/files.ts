/**
 * The local stack's files under its data directory: the approval signing keyring (so links survive a
 * restart), the API keys file and the secrets file (the local Secrets Manager). Created on first start.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type LocalFiles = { dir: string; keyring: string; apiKeys: string; secrets: string; dynamodb: string };

export function localFiles(dir: string): LocalFiles {
  return {
    dir,
    keyring: join(dir, 'keyring.json'),
    apiKeys: join(dir, 'api-keys.json'),
    secrets: join(dir, 'secrets.json'),
    dynamodb: join(dir, 'dynamodb'),
  };
}

function writeIfMissing(path: string, make: () => unknown): void {
  if (existsSync(path)) return;
  writeFileSync(path, `${JSON.stringify(make(), null, 2)}\n`, { mode: 0o600 });
}

/** Creates the directory and any missing file; returns the local API key of owner `local`. */
export function ensureLocalFiles(files: LocalFiles): { apiKey: string; owner: string } {
  mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  mkdirSync(files.dynamodb, { recursive: true });
  writeIfMissing(files.keyring, () => ({
    current: { kid: 'local-1', secret: randomBytes(32).toString('base64url') },
  }));
  writeIfMissing(files.apiKeys, () => ({
    keys: { [`wfl_${randomBytes(24).toString('base64url')}`]: { owner: 'local' } },
  }));
  writeIfMissing(files.secrets, () => ({}));
  const keys = JSON.parse(readFileSync(files.apiKeys, 'utf8')) as {
    keys: Record<string, { owner: string; client?: string }>;
  };
  // An owner's key, never a delegated-jobs client's (docs/jobs.md).
  const owners = Object.entries(keys.keys).filter(([, value]) => value.client === undefined);
  const [apiKey, entry] = owners.find(([, value]) => value.owner === 'local') ?? owners[0] ?? [];
  if (!apiKey || !entry) throw new Error(`${files.apiKeys} holds no API key`);
  return { apiKey, owner: entry.owner };
}

/** Adds a secret to the local secrets file when it is not there yet; returns the stored value. */
export function ensureLocalSecret(files: LocalFiles, name: string, make: () => string): string {
  const secrets = JSON.parse(readFileSync(files.secrets, 'utf8')) as Record<string, unknown>;
  const existing = secrets[name];
  if (typeof existing === 'string') return existing;
  const value = make();
  writeFileSync(files.secrets, `${JSON.stringify({ ...secrets, [name]: value }, null, 2)}\n`, {
    mode: 0o600,
  });
  return value;
}
