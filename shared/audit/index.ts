export type {
  OwnerAnchor,
  OwnerAnchorInput,
  OwnerChainFailureReason,
  OwnerChainVerification,
} from './anchor.ts';
export {
  anchoredHead,
  OwnerAnchorSchema,
  ownerGenesisHash,
  sealOwnerAnchor,
  verifyOwnerChain,
} from './anchor.ts';
export { canonicalJson, sha256Hex } from './canonical.ts';
export type { AuditEntry, AuditEntryType, UnsealedAuditEntry } from './entry.ts';
export { AUDIT_ENTRY_TYPES, AuditActorSchema, AuditEntrySchema, HexHashSchema } from './entry.ts';
export { AuditEntryError, CanonicalJsonError } from './errors.ts';
export type {
  OwnerChange,
  OwnerChangeFailureReason,
  OwnerChangeInput,
  OwnerChangeType,
  OwnerChangeVerification,
} from './owner-changes.ts';
export {
  definitionHash,
  OWNER_CHANGE_TYPES,
  OwnerChangeSchema,
  ownerChangeGenesisHash,
  sealOwnerChange,
  verifyOwnerChanges,
} from './owner-changes.ts';
export type { AuditEntryInput } from './seal.ts';
export {
  AUDIT_ENTRY_DOMAIN,
  AUDIT_GENESIS_DOMAIN,
  appendAuditEntry,
  auditGenesisHash,
  computeAuditEntryHash,
  sealAuditEntry,
} from './seal.ts';
export type { AnchorSigner, AnchorVerifier, ChainPoint, SignedHead, SignedHeadBody } from './signed-head.ts';
export {
  ChainPointSchema,
  SIGNED_HEAD_ALGORITHM,
  SIGNED_HEAD_DOMAIN,
  SignedHeadBodySchema,
  SignedHeadSchema,
  signedHeadMessage,
  signHead,
} from './signed-head.ts';
export type { AuditChainFailureReason, AuditChainVerification, VerifyAuditChainOptions } from './verify.ts';
export { verifyAuditChain } from './verify.ts';
export type {
  ChainEntries,
  SignedChains,
  SignedHeadFailureReason,
  SignedHeadVerification,
} from './verify-signed.ts';
export { checkSignedHeads, newerHead, signedSummary, verifySignedHeads } from './verify-signed.ts';
