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
export type { AuditEntryInput } from './seal.ts';
export {
  AUDIT_ENTRY_DOMAIN,
  AUDIT_GENESIS_DOMAIN,
  appendAuditEntry,
  auditGenesisHash,
  computeAuditEntryHash,
  sealAuditEntry,
} from './seal.ts';
export type { AuditChainFailureReason, AuditChainVerification, VerifyAuditChainOptions } from './verify.ts';
export { verifyAuditChain } from './verify.ts';
