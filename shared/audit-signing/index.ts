export { KMS_RAW_MESSAGE_MAX_BYTES, type KmsSend, kmsAnchorSigner, kmsAnchorVerifier } from './kms.ts';
export {
  ensureLocalSigningKey,
  localKeySigner,
  localKeyVerifier,
  localKeyVerifierFromFile,
  localSigningKeyFiles,
} from './local-key.ts';
export { heldPublicKeyVerifier, localKeyId, p256PublicKey, publicKeyVerifier } from './public-key.ts';
