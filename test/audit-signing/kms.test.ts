import { generateKeyPairSync, sign } from 'node:crypto';
import { GetPublicKeyCommand, SignCommand } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { signHead, verifySignedHeads } from '../../shared/audit/index.ts';
import {
  KMS_RAW_MESSAGE_MAX_BYTES,
  kmsAnchorSigner,
  kmsAnchorVerifier,
} from '../../shared/audit-signing/index.ts';

const keyArn = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

/** A recording stand-in for KMSClient: signs like KMS would (ECDSA P-256, SHA-256, DER) with a local key. */
class RecordingKms {
  readonly commands: (SignCommand | GetPublicKeyCommand)[] = [];
  readonly #keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  readonly keySpec: string;
  constructor(keySpec = 'ECC_NIST_P256') {
    this.keySpec = keySpec;
  }
  async send(command: SignCommand | GetPublicKeyCommand): Promise<unknown> {
    this.commands.push(command);
    if (command instanceof SignCommand) {
      const message = command.input.Message as Uint8Array;
      return {
        KeyId: keyArn,
        Signature: sign('sha256', message, { key: this.#keys.privateKey, dsaEncoding: 'der' }),
      };
    }
    return {
      KeyId: keyArn,
      KeySpec: this.keySpec,
      KeyUsage: 'SIGN_VERIFY',
      SigningAlgorithms: ['ECDSA_SHA_256'],
      PublicKey: this.#keys.publicKey.export({ type: 'spki', format: 'der' }),
    };
  }
}

const body = {
  schemaVersion: 1 as const,
  owner: '123456789012:role:ops',
  signedAt: '2026-12-01T10:00:00.000Z',
  anchors: { seq: 0, hash: 'a'.repeat(64) },
  changes: null,
};
const chains = { anchors: [{ hash: 'a'.repeat(64) }], changes: [] };

describe('KMS anchor signing adapters', () => {
  it('sends kms:Sign for the key with a RAW message and ECDSA_SHA_256, and records the key ARN', async () => {
    // Prepare
    const kms = new RecordingKms();
    // Act
    const signed = await signHead(kmsAnchorSigner({ client: kms, keyArn }), body);
    // Assess
    expect(kms.commands).toHaveLength(1);
    const [command] = kms.commands;
    expect(command).toBeInstanceOf(SignCommand);
    expect(command!.input).toEqual({
      KeyId: keyArn,
      Message: expect.any(Uint8Array),
      MessageType: 'RAW',
      SigningAlgorithm: 'ECDSA_SHA_256',
    });
    expect(Buffer.from((command as SignCommand).input.Message!).toString()).toMatch(
      /^wf-audit-signed-head\/v1\n\{/,
    );
    expect(signed).toMatchObject({ keyId: keyArn, algorithm: 'ECDSA_SHA_256' });
  });

  it('verifies with the public key fetched once by kms:GetPublicKey', async () => {
    // Prepare
    const kms = new RecordingKms();
    const signed = await signHead(kmsAnchorSigner({ client: kms, keyArn }), body);
    const verifier = kmsAnchorVerifier({ client: kms, keyArn });
    // Act
    const first = await verifySignedHeads([signed], chains, { owner: body.owner, verifier });
    const second = await verifySignedHeads([signed, signed], chains, { owner: body.owner, verifier });
    const forged = await verifySignedHeads(
      [{ ...signed, keyId: 'arn:aws:kms:eu-west-1:1:key/other' }],
      chains,
      {
        owner: body.owner,
        verifier,
      },
    );
    // Assess
    expect(first).toMatchObject({ ok: true, count: 1 });
    expect(second).toMatchObject({ ok: true, count: 2 });
    expect(forged).toMatchObject({ ok: false, reason: 'bad_signature' });
    const fetches = kms.commands.filter((command) => command instanceof GetPublicKeyCommand);
    expect(fetches.map((command) => command.input)).toEqual([{ KeyId: keyArn }]);
  });

  it('fails closed when the key is not an ECC_NIST_P256 signing key', async () => {
    // Prepare
    const kms = new RecordingKms('RSA_2048');
    const signed = await signHead(kmsAnchorSigner({ client: kms, keyArn }), body);
    // Act
    const result = await verifySignedHeads([signed], chains, {
      owner: body.owner,
      verifier: kmsAnchorVerifier({ client: kms, keyArn }),
    });
    // Assess
    expect(result).toMatchObject({ ok: false, reason: 'verifier_error' });
  });

  it('refuses a message longer than KMS signs raw', async () => {
    // Prepare
    const signer = kmsAnchorSigner({ client: new RecordingKms(), keyArn });
    // Act / Assess
    await expect(signer.sign(new Uint8Array(KMS_RAW_MESSAGE_MAX_BYTES + 1))).rejects.toThrow(/4096/);
  });
});
