import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { CanonicalJsonError } from './errors.ts';

/** RFC 8785 canonical JSON of a value; throws `CanonicalJsonError` when the value has no JSON form. */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch (cause) {
    throw new CanonicalJsonError(`value is not canonical-JSON serializable: ${(cause as Error).message}`, {
      cause,
    });
  }
  // canonicalize returns undefined for undefined, functions and symbols at the top level.
  if (text === undefined) throw new CanonicalJsonError('value has no JSON representation');
  return text;
}

/** Lower-case hex SHA-256 of the UTF-8 encoding of the given parts, concatenated. */
export function sha256Hex(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part, 'utf8');
  return hash.digest('hex');
}
