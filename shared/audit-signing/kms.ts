/**
 * The AWS adapters of the anchor-signing port: a KMS asymmetric key (key spec ECC_NIST_P256, key usage
 * SIGN_VERIFY) signs; its public key, fetched once with `kms:GetPublicKey`, verifies outside KMS.
 *
 * - Sign: https://docs.aws.amazon.com/kms/latest/APIReference/API_Sign.html — `Message` up to 4096 bytes with
 *   `MessageType: RAW` (KMS hashes it with the algorithm's SHA-256); the caller needs `kms:Sign` on the key.
 * - The `Signature` of an ECDSA algorithm is DER-encoded (ANSI X9.62), per the same page's response syntax;
 *   key spec ECC_NIST_P256 signs with ECDSA_SHA_256:
 *   https://docs.aws.amazon.com/kms/latest/developerguide/symm-asymm-choose-key-spec.html
 * - GetPublicKey: https://docs.aws.amazon.com/kms/latest/APIReference/API_GetPublicKey.html — a DER-encoded
 *   X.509 SubjectPublicKeyInfo (RFC 5280), with the key spec, usage and signing algorithms.
 * - Offline verification with the public key:
 *   https://docs.aws.amazon.com/kms/latest/developerguide/offline-operations.html
 */
import { GetPublicKeyCommand, SignCommand } from '@aws-sdk/client-kms';
import type { AnchorSigner, AnchorVerifier } from '../audit/index.ts';
import { SIGNED_HEAD_ALGORITHM } from '../audit/index.ts';
import { p256PublicKey, publicKeyVerifier } from './public-key.ts';

/** The part of `KMSClient` the adapters use, so tests pass a recording fake. */
export type KmsSend = { send(command: SignCommand | GetPublicKeyCommand): Promise<unknown> };

/** KMS Sign's documented limit for a RAW message. */
export const KMS_RAW_MESSAGE_MAX_BYTES = 4096;

/** Signs with `kms:Sign`; `keyArn` is both the KeyId sent and the key id recorded (verifiers match it). */
export function kmsAnchorSigner(options: { client: KmsSend; keyArn: string }): AnchorSigner {
  return {
    keyId: options.keyArn,
    async sign(message) {
      if (message.byteLength > KMS_RAW_MESSAGE_MAX_BYTES) {
        throw new Error(`a signed head is ${message.byteLength} bytes; KMS signs at most 4096 raw bytes`);
      }
      const response = (await options.client.send(
        new SignCommand({
          KeyId: options.keyArn,
          Message: message,
          MessageType: 'RAW',
          SigningAlgorithm: SIGNED_HEAD_ALGORITHM,
        }),
      )) as { Signature?: Uint8Array };
      if (!response.Signature?.byteLength) throw new Error('KMS Sign returned no signature');
      return response.Signature;
    },
  };
}

type PublicKeyResponse = {
  PublicKey?: Uint8Array;
  KeySpec?: string;
  KeyUsage?: string;
  SigningAlgorithms?: string[];
};

/**
 * Verifies with the key's public key, fetched once per container with `kms:GetPublicKey` and cached (a
 * failed fetch is retried on the next call). Verification itself happens here, not in KMS.
 */
export function kmsAnchorVerifier(options: { client: KmsSend; keyArn: string }): AnchorVerifier {
  let verifier: Promise<AnchorVerifier> | undefined;
  const load = async (): Promise<AnchorVerifier> => {
    const response = (await options.client.send(
      new GetPublicKeyCommand({ KeyId: options.keyArn }),
    )) as PublicKeyResponse;
    if (
      !response.PublicKey ||
      response.KeySpec !== 'ECC_NIST_P256' ||
      response.KeyUsage !== 'SIGN_VERIFY' ||
      !response.SigningAlgorithms?.includes(SIGNED_HEAD_ALGORITHM)
    ) {
      throw new Error(`KMS key ${options.keyArn} is not an ECC_NIST_P256 SIGN_VERIFY key for ECDSA_SHA_256`);
    }
    return publicKeyVerifier({ keyId: options.keyArn, publicKey: p256PublicKey(response.PublicKey) });
  };
  return {
    async verify(message, signature, keyId) {
      verifier ??= load().catch((error: unknown) => {
        verifier = undefined;
        throw error;
      });
      return (await verifier).verify(message, signature, keyId);
    },
  };
}
