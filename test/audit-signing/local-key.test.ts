import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type SignedHeadBody,
  signedHeadMessage,
  signHead,
  verifySignedHeads,
} from '../../shared/audit/index.ts';
import {
  ensureLocalSigningKey,
  localKeySigner,
  localKeyVerifier,
  localKeyVerifierFromFile,
} from '../../shared/audit-signing/index.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'wf-audit-key-'));
const hash = (c: string) => c.repeat(64);
const body: SignedHeadBody = {
  schemaVersion: 1,
  owner: 'local',
  signedAt: '2026-12-01T10:00:00.000Z',
  anchors: { seq: 0, hash: hash('a') },
  changes: { seq: 1, hash: hash('c') },
};
const chains = { anchors: [{ hash: hash('a') }], changes: [{ hash: hash('b') }, { hash: hash('c') }] };

describe('Local audit signing key', () => {
  it('is created once under the data directory, the private key readable by its owner only', () => {
    // Prepare
    const data = dir();
    // Act
    const files = ensureLocalSigningKey(data);
    const before = readFileSync(files.privateKey, 'utf8');
    ensureLocalSigningKey(data);
    // Assess
    expect(statSync(files.privateKey).mode & 0o777).toBe(0o600);
    expect(readFileSync(files.privateKey, 'utf8')).toBe(before);
    expect(readFileSync(files.publicKey, 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);
  });

  it('signs heads that verify with the public key file, and only with it', async () => {
    // Prepare
    const files = ensureLocalSigningKey(dir());
    const signer = localKeySigner(readFileSync(files.privateKey, 'utf8'));
    const verifier = localKeyVerifierFromFile(files.publicKey);
    const otherKey = ensureLocalSigningKey(dir());
    // Act
    const signed = await signHead(signer, body);
    // Assess
    expect(signed.keyId).toBe(verifier.keyId);
    expect(signed.keyId).toMatch(/^local:[0-9a-f]{16}$/);
    await expect(verifySignedHeads([signed], chains, { owner: 'local', verifier })).resolves.toMatchObject({
      ok: true,
      count: 1,
      newest: signed,
      unsigned: { anchors: 0, changes: 0 },
    });
    const foreign = localKeyVerifier(readFileSync(otherKey.publicKey, 'utf8'));
    expect(await verifySignedHeads([signed], chains, { owner: 'local', verifier: foreign })).toMatchObject({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it.each([
    ['an edited signed hash', { anchors: { seq: 0, hash: hash('f') } }, 'bad_signature'],
    ['a moved signing time', { signedAt: '2026-12-02T10:00:00.000Z' }, 'bad_signature'],
    ['another owner', { owner: 'mallory' }, 'wrong_owner'],
  ] as const)('refuses a signed head with %s', async (_name, edit, reason) => {
    // Prepare
    const files = ensureLocalSigningKey(dir());
    const signer = localKeySigner(readFileSync(files.privateKey, 'utf8'));
    const verifier = localKeyVerifierFromFile(files.publicKey);
    const signed = { ...(await signHead(signer, body)), ...edit };
    // Act
    const result = await verifySignedHeads([signed], chains, { owner: 'local', verifier });
    // Assess
    expect(result).toMatchObject({ ok: false, reason });
  });

  it('refuses a validly signed head the stored chain no longer matches, and chains with no signed head', async () => {
    // Prepare
    const files = ensureLocalSigningKey(dir());
    const signer = localKeySigner(readFileSync(files.privateKey, 'utf8'));
    const verifier = localKeyVerifierFromFile(files.publicKey);
    const signed = await signHead(signer, body);
    const rewritten = { ...chains, changes: [{ hash: hash('b') }, { hash: hash('d') }] };
    // Act / Assess
    expect(await verifySignedHeads([signed], rewritten, { owner: 'local', verifier })).toMatchObject({
      ok: false,
      reason: 'head_mismatch',
    });
    expect(
      await verifySignedHeads([signed], { ...chains, changes: [] }, { owner: 'local', verifier }),
    ).toMatchObject({
      ok: false,
      reason: 'head_mismatch',
    });
    expect(await verifySignedHeads([], chains, { owner: 'local', verifier })).toMatchObject({
      ok: false,
      reason: 'no_signed_head',
    });
  });

  it('binds the key id into the signed bytes', () => {
    // Act / Assess
    expect(Buffer.from(signedHeadMessage(body, 'local:1')).toString()).not.toBe(
      Buffer.from(signedHeadMessage(body, 'local:2')).toString(),
    );
  });
});
