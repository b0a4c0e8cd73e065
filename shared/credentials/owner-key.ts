/**
 * `ownerKey(owner)`: the one encoding of an owner used wherever an owner must become part of an AWS name or
 * tag — credential secret names (`wf/<ownerKey>/…`), the `wf-owner` tag on those secrets and the `wf-owner`
 * session tag of the role session that reads them. Pure: no AWS SDK, no clock.
 *
 * Both targets constrain the characters:
 * - Secret names: letters, digits and `/_+=.@-`, at most 512 characters
 *   (https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_CreateSecret.html).
 * - Session tag values: `[\p{L}\p{Z}\p{N}_.:/=+\-@]`, at most 256 characters
 *   (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html#reference_iam-quotas-entity-length).
 * The intersection, minus `/` (the path separator of `wf/<ownerKey>/name`), is `[A-Za-z0-9_+.@-]` plus `=`.
 *
 * The encoding (injective: two owners never share a key):
 * 1. Every byte of the owner's UTF-8 outside `[A-Za-z0-9_+.@-]` is written `=XX` (uppercase hex), `=` itself
 *    included — so `auth0|abc` is `auth0=7Cabc` and `123456789012:role:ci` is `123456789012=3Arole=3Aci`.
 *    An escaping in which the escape character is escaped is injective.
 * 2. When that is longer than 128 characters, the key is `=h` followed by the base32 (RFC 4648, lowercase, no
 *    padding) of the SHA-256 of the owner. An escaped key never contains `=h` (`=` is always followed by two
 *    uppercase hex digits), so the two forms never meet, and within the hashed form SHA-256 keeps owners apart.
 *
 * A key never holds `/` (so `wf/<key>/` cannot cover another owner's namespace) nor `*` or `?` (IAM reads those
 * as wildcards where `${aws:PrincipalTag/wf-owner}` is substituted into the credential-reader role's resource).
 */
import { createHash } from 'node:crypto';

/** The session tag key, also the tag key operators put on each credential secret (value: the ownerKey). */
export const OWNER_TAG_KEY = 'wf-owner';

/** Longest escaped key kept readable; longer owners get the hashed form (54 characters). */
export const MAX_READABLE_OWNER_KEY = 128;

const SAFE_BYTE = /^[A-Za-z0-9_+.@-]$/;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function base32(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

function escaped(owner: string): string {
  let out = '';
  for (const byte of Buffer.from(owner, 'utf8')) {
    const char = String.fromCharCode(byte);
    out +=
      byte < 0x80 && SAFE_BYTE.test(char) ? char : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The key of an owner in secret names and tags.
 *
 * @example
 * ownerKey('alice') // 'alice'
 * ownerKey('auth0|abc') // 'auth0=7Cabc'
 * ownerKey('repo:org/x:ref:refs/heads/main') // 'repo=3Aorg=2Fx=3Aref=3Arefs=2Fheads=2Fmain'
 */
export function ownerKey(owner: string): string {
  if (owner === '') throw new TypeError('ownerKey: the owner is empty');
  const key = escaped(owner);
  if (key.length <= MAX_READABLE_OWNER_KEY) return key;
  return `=h${base32(createHash('sha256').update(owner, 'utf8').digest())}`;
}

/** The secret-name prefix of an owner's credentials: `<prefix><ownerKey>/`, e.g. `wf/auth0=7Cabc/`. */
export const ownerSecretPrefix = (namePrefix: string, owner: string): string =>
  `${namePrefix}${ownerKey(owner)}/`;

/** The name part of a secret id: the name itself, or the name in an ARN without its 6-character suffix. */
export const secretNameOf = (secret: string): string =>
  secret.startsWith('arn:') ? (secret.split(':secret:')[1] ?? '').replace(/-[A-Za-z0-9]{6}$/, '') : secret;

/** Whether `secret` (a name or an ARN) is one of `owner`'s: its name is `<prefix><ownerKey>/<something>`. */
export function isOwnerSecret(namePrefix: string, owner: string, secret: string): boolean {
  const prefix = ownerSecretPrefix(namePrefix, owner);
  const name = secretNameOf(secret);
  return name.startsWith(prefix) && name.length > prefix.length;
}
