/**
 * Sealed tokens: a value the server hands to the browser and gets back, which the browser can neither read
 * nor change. AES-256-GCM (authenticated encryption: its tag is the integrity check, as the HMAC is for links)
 * under a key derived per token from the keyring's secret: HKDF-SHA256 with a random salt and `domain` as its
 * info, so a sealed token never opens as another kind, and no two tokens share a key (no nonce budget).
 *
 * `s1.<kid>.<salt>.<iv>.<ciphertext>.<tag>` (base64url, canonical spellings only). `bound` is authenticated
 * but not carried (GCM's additional data): a token opens only beside the same values (an approval id, an
 * approver, a form nonce), so it cannot be re-aimed at another subject.
 * https://nodejs.org/api/crypto.html#cryptohkdfsyncdigest-ikm-salt-info-keylen
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { canonicalJson } from '../audit/index.ts';
import { findKey, type Keyring, type SigningKey } from './keyring.ts';

const VERSION = 's1';
const SEGMENT = /^[A-Za-z0-9_-]+$/;
const SALT_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Why a sealed token could not be opened. */
export type SealedTokenFailure = 'malformed' | 'too_long' | 'unknown_key' | 'bad_seal';

const keyFor = (key: SigningKey, domain: string, salt: Buffer): Buffer =>
  Buffer.from(hkdfSync('sha256', Buffer.from(key.secret, 'utf8'), salt, domain, 32));

/** `domain` (which ends in a line break, as every token domain does) ‖ `s1\n` ‖ kid ‖ `\n` ‖ canonical JSON of `bound`. */
const additionalData = (domain: string, kid: string, bound: Record<string, unknown>) =>
  Buffer.from(`${domain}${VERSION}\n${kid}\n${canonicalJson(bound)}`, 'utf8');

/** Decodes base64url, refusing non-canonical spellings. */
function decode(segment: string | undefined): Buffer | undefined {
  if (segment === undefined || !SEGMENT.test(segment)) return undefined;
  const bytes = Buffer.from(segment, 'base64url');
  return bytes.toString('base64url') === segment ? bytes : undefined;
}

/**
 * Seals `value` (JSON) with the keyring's current key for `domain`, bound to `bound`.
 *
 * @example
 * const token = sealToken('wf-approval/v1/form-state\n', { a: 1 }, keyring, { approvalId });
 */
export function sealToken(
  domain: string,
  value: unknown,
  keyring: Keyring,
  bound: Record<string, unknown>,
): string {
  const key = keyring.current;
  const salt = randomBytes(SALT_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyFor(key, domain, salt), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(domain, key.kid, bound));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  const parts = [salt, iv, sealed, cipher.getAuthTag()].map((bytes) => bytes.toString('base64url'));
  return [VERSION, key.kid, ...parts].join('.');
}

/**
 * Opens a token `sealToken` made for `domain` and `bound`, with the key its `kid` names (current or previous).
 * The value is as sealed; the caller still parses it.
 */
export function openSealedToken(
  token: unknown,
  domain: string,
  keyring: Keyring,
  bound: Record<string, unknown>,
  maxLength: number,
): { ok: true; value: unknown } | { ok: false; reason: SealedTokenFailure } {
  if (typeof token !== 'string') return { ok: false, reason: 'malformed' };
  if (token.length > maxLength) return { ok: false, reason: 'too_long' };
  const [version, kid, ...rest] = token.split('.');
  if (version !== VERSION || kid === undefined || rest.length !== 4)
    return { ok: false, reason: 'malformed' };
  const [salt, iv, sealed, tag] = rest.map(decode);
  if (!salt || !iv || !sealed || !tag) return { ok: false, reason: 'malformed' };
  if (salt.length !== SALT_BYTES || iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
    return { ok: false, reason: 'malformed' };
  const key = findKey(keyring, kid);
  if (key === undefined) return { ok: false, reason: 'unknown_key' };
  let plain: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(key, domain, salt), iv, {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(additionalData(domain, kid, bound));
    decipher.setAuthTag(tag);
    plain = Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
  } catch {
    // A wrong key, other bound values or any changed byte: GCM's tag does not verify.
    return { ok: false, reason: 'bad_seal' };
  }
  try {
    return { ok: true, value: JSON.parse(plain) };
  } catch {
    return { ok: false, reason: 'malformed' };
  }
}
