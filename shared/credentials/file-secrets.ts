/**
 * Credentials from a local secrets file (the local stand-in for Secrets Manager), through the same port
 * and the same redaction: `{ "wf/site-token": "value", "wf/json-secret": { "token": "value" } }`.
 */
import { readFileSync } from 'node:fs';
import type { CredentialRef, SecretsPort } from '../core/ports.ts';
import { CredentialError } from './errors.ts';
import { extractSecretValue } from './extract.ts';
import { Redactor } from './redactor.ts';

export function fileSecrets(path: string): SecretsPort {
  const redactor = new Redactor();
  const read = (): Record<string, unknown> => {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new CredentialError(path, 'the local secrets file is not valid JSON');
    }
  };
  return {
    async resolve(ref: CredentialRef) {
      const stored = read()[ref.secret];
      if (stored === undefined)
        throw new CredentialError(ref.secret, `is not in the local secrets file ${path}`);
      const value = extractSecretValue(ref, typeof stored === 'string' ? stored : JSON.stringify(stored));
      redactor.add(value);
      return value;
    },
    redact: (text) => redactor.redact(text),
  };
}
