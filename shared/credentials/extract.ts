/** Picks a field out of a JSON secret, or returns a plain secret string as is. */
import type { CredentialRef } from '../core/ports.ts';
import { CredentialError } from './errors.ts';

export function extractSecretValue(ref: CredentialRef, raw: string): string {
  if (ref.field === undefined) return raw;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new CredentialError(ref.secret, `field '${ref.field}' was asked for, but the secret is not JSON`, {
      permanent: true,
    });
  }
  const value = (parsed as Record<string, unknown> | null)?.[ref.field];
  if (typeof value !== 'string' || value === '')
    throw new CredentialError(ref.secret, `has no string field '${ref.field}'`, { permanent: true });
  return value;
}
