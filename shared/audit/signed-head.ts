import * as z from '../zod.ts';
import { canonicalJson } from './canonical.ts';
import { HexHashSchema } from './entry.ts';

/** Domain separator of the bytes a signed head signs, so no other signature of the key can pass as one. */
export const SIGNED_HEAD_DOMAIN = 'wf-audit-signed-head/v1\n';
/** The one signing algorithm: ECDSA over P-256 with SHA-256, DER signatures (KMS `ECDSA_SHA_256`). */
export const SIGNED_HEAD_ALGORITHM = 'ECDSA_SHA_256';

/** Where a chain stood when it was signed: its last entry's seq and hash, or `null` while it was empty. */
export const ChainPointSchema = z.nullable(
  z.strictObject({ seq: z.number().check(z.int(), z.nonnegative()), hash: HexHashSchema }),
);
/** A chain point. */
export type ChainPoint = z.infer<typeof ChainPointSchema>;

/** What is signed: the heads of an owner's anchor chain and workflow-change chain at one moment. */
export const SignedHeadBodySchema = z.strictObject({
  schemaVersion: z.literal(1),
  owner: z.string().check(z.minLength(1)),
  signedAt: z.iso.datetime({ offset: true }),
  anchors: ChainPointSchema,
  changes: ChainPointSchema,
});
/** The signed part of a signed head. */
export type SignedHeadBody = z.infer<typeof SignedHeadBodySchema>;

/** A signed head as exported: the body, the signing key's id, the algorithm and the base64 signature. */
export const SignedHeadSchema = z.extend(SignedHeadBodySchema, {
  keyId: z.string().check(z.minLength(1)),
  algorithm: z.literal(SIGNED_HEAD_ALGORITHM),
  signature: z.base64(),
});
/** A signed head. */
export type SignedHead = z.infer<typeof SignedHeadSchema>;

/**
 * Signs anchor heads. The port keeps key material and its backend (a KMS asymmetric key on AWS, a key file
 * locally) out of the audit logic.
 */
export interface AnchorSigner {
  /** The key's id as verifiers know it: the KMS key ARN, or `local:<fingerprint>`. */
  readonly keyId: string;
  /** A DER-encoded ECDSA P-256 / SHA-256 signature over `message`. */
  sign(message: Uint8Array): Promise<Uint8Array>;
}

/** Checks signed-head signatures with a public key; any fault answers `false` or throws (both fail closed). */
export interface AnchorVerifier {
  verify(message: Uint8Array, signature: Uint8Array, keyId: string): Promise<boolean>;
}

/** The bytes a signature covers: the domain, then canonical JSON of the body with key id and algorithm. */
export function signedHeadMessage(body: SignedHeadBody, keyId: string): Uint8Array {
  const { schemaVersion, owner, signedAt, anchors, changes } = body;
  const text = canonicalJson({
    schemaVersion,
    owner,
    signedAt,
    anchors,
    changes,
    keyId,
    algorithm: SIGNED_HEAD_ALGORITHM,
  });
  return new TextEncoder().encode(`${SIGNED_HEAD_DOMAIN}${text}`);
}

/** Signs the heads of an owner's chains. */
export async function signHead(signer: AnchorSigner, body: SignedHeadBody): Promise<SignedHead> {
  const parsed = SignedHeadBodySchema.parse(body);
  const signature = await signer.sign(signedHeadMessage(parsed, signer.keyId));
  return {
    ...parsed,
    keyId: signer.keyId,
    algorithm: SIGNED_HEAD_ALGORITHM,
    signature: Buffer.from(signature).toString('base64'),
  };
}
