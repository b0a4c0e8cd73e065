/** Verifies signed heads with an ECDSA P-256 public key (SPKI), whatever signed them (KMS or a local key). */
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import type { AnchorVerifier } from '../audit/index.ts';

/** `local:<first 16 hex of SHA-256(SPKI DER)>`: a stable id for a local public key. */
export function localKeyId(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return `local:${createHash('sha256').update(der).digest('hex').slice(0, 16)}`;
}

/** Checks that a key is an EC P-256 public key; the algorithm is fixed, never taken from a record. */
export function p256PublicKey(key: string | Uint8Array): KeyObject {
  const publicKey =
    typeof key === 'string'
      ? createPublicKey(key)
      : createPublicKey({ key: Buffer.from(key), format: 'der', type: 'spki' });
  if (publicKey.asymmetricKeyType !== 'ec' || publicKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('the audit signing public key must be an EC P-256 key');
  }
  return publicKey;
}

/**
 * A verifier for one key: a record naming any other key id is refused (a table writer cannot bring a key of
 * their own). ECDSA with SHA-256 over the message, DER signature: what KMS `ECDSA_SHA_256` produces.
 */
export function publicKeyVerifier(options: { keyId: string; publicKey: KeyObject }): AnchorVerifier {
  return {
    async verify(message, signature, keyId) {
      if (keyId !== options.keyId) return false;
      return verify('sha256', message, { key: options.publicKey, dsaEncoding: 'der' }, signature);
    },
  };
}

/**
 * A verifier over a public key the operator holds (e.g. exported with `aws kms get-public-key` at deploy):
 * any key id is accepted, because the key itself is the trust anchor — a record signed by another key fails.
 */
export function heldPublicKeyVerifier(publicKeyPem: string): AnchorVerifier {
  const publicKey = p256PublicKey(publicKeyPem);
  return {
    async verify(message, signature) {
      return verify('sha256', message, { key: publicKey, dsaEncoding: 'der' }, signature);
    },
  };
}
