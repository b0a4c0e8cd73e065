import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../audit/index.ts';
import { findKey, type Keyring, type SigningKey } from './keyring.ts';

/** Tokens longer than this are refused before any decoding work. */
const MAX_TOKEN_LENGTH = 4096;
const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** Why a token could not be opened. */
export type TokenFailure = 'malformed' | 'unknown_key' | 'bad_signature';

function mac(key: SigningKey, domain: string, payload: string): Buffer {
  return createHmac('sha256', key.secret).update(domain, 'utf8').update(payload, 'utf8').digest();
}

/** Decodes base64url, refusing non-canonical spellings so that one token has exactly one string form. */
function decodeSegment(segment: string): Buffer | undefined {
  if (!SEGMENT.test(segment)) return undefined;
  const bytes = Buffer.from(segment, 'base64url');
  return bytes.toString('base64url') === segment ? bytes : undefined;
}

/**
 * `base64url(canonicalJSON(payload)) '.' base64url(HMAC-SHA256(secret, domain ‖ payloadSegment))`, signed
 * with the current key whose `kid` is written into the payload. `domain` separates token kinds, so a form
 * nonce never verifies as a link.
 */
export function signToken(domain: string, claims: Record<string, unknown>, keyring: Keyring): string {
  const key = keyring.current;
  const payload = Buffer.from(canonicalJson({ ...claims, kid: key.kid }), 'utf8').toString('base64url');
  return `${payload}.${mac(key, domain, payload).toString('base64url')}`;
}

/** Checks a token's signature and returns its payload; the payload is untrusted until this says ok. */
export function openToken(
  token: unknown,
  domain: string,
  keyring: Keyring,
): { ok: true; payload: Record<string, unknown>; kid: string } | { ok: false; reason: TokenFailure } {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 2) return { ok: false, reason: 'malformed' };
  const [payloadSegment, signatureSegment] = parts as [string, string];
  const payloadBytes = decodeSegment(payloadSegment);
  if (payloadBytes === undefined) return { ok: false, reason: 'malformed' };
  let payload: unknown;
  try {
    payload = JSON.parse(payloadBytes.toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    return { ok: false, reason: 'malformed' };
  }
  // Only the key id is read before the signature is checked.
  const kid = (payload as { kid?: unknown }).kid;
  if (typeof kid !== 'string') return { ok: false, reason: 'malformed' };
  const key = findKey(keyring, kid);
  if (key === undefined) return { ok: false, reason: 'unknown_key' };
  const expected = mac(key, domain, payloadSegment);
  const given = decodeSegment(signatureSegment);
  if (given === undefined || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad_signature' };
  }
  return { ok: true, payload: payload as Record<string, unknown>, kid };
}
