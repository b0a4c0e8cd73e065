/**
 * The local stack's audit signing key: an ECDSA P-256 key pair in the data directory, created on first start
 * (private key 0600). The public key file is what `wf audit verify` checks signatures with.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnchorSigner, AnchorVerifier } from '../audit/index.ts';
import { localKeyId, p256PublicKey, publicKeyVerifier } from './public-key.ts';

/** The key files under a data directory. */
export const localSigningKeyFiles = (dir: string) => ({
  privateKey: join(dir, 'audit-signing-key.pem'),
  publicKey: join(dir, 'audit-signing-key.pub.pem'),
});

/** Creates the key pair when missing (`wx`: never overwrites); returns the file paths. */
export function ensureLocalSigningKey(dir: string): ReturnType<typeof localSigningKeyFiles> {
  const files = localSigningKeyFiles(dir);
  if (!existsSync(files.privateKey)) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(files.privateKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
      mode: 0o600,
      flag: 'wx',
    });
    writeFileSync(files.publicKey, publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644 });
  }
  return files;
}

/** A signer over the private key file's key. */
export function localKeySigner(privateKeyPem: string): AnchorSigner {
  const privateKey = createPrivateKey(privateKeyPem);
  const publicKey = p256PublicKey(
    createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }) as string,
  );
  return {
    keyId: localKeyId(publicKey),
    async sign(message) {
      return sign('sha256', message, { key: privateKey, dsaEncoding: 'der' });
    },
  };
}

/** A verifier over a public key file (PEM); the key id is derived from the key itself. */
export function localKeyVerifier(publicKeyPem: string): AnchorVerifier & { keyId: string } {
  const publicKey = p256PublicKey(publicKeyPem);
  const keyId = localKeyId(publicKey);
  return { keyId, ...publicKeyVerifier({ keyId, publicKey }) };
}

/** Reads a public key file into a verifier. */
export const localKeyVerifierFromFile = (path: string) => localKeyVerifier(readFileSync(path, 'utf8'));
