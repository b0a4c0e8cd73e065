import { canonicalJson, sha256Hex } from '../audit/index.ts';
import type { Keyring } from './keyring.ts';
import { type SubjectLinkFailure, signSubjectLink, verifySubjectLink } from './subject-link.ts';

/**
 * SHA-256 hex of canonicalJSON({ tool, args }) (missing args as null): binds a link (and the audit chain) to the exact call.
 * Key order of `args` does not matter; any change of a value does.
 */
export function argsHash(toolName: string, args: unknown): string {
  // Missing args hash as null (canonicalize would drop an undefined key), as shared/core/identity.ts does.
  return sha256Hex(canonicalJson({ tool: toolName, args: args ?? null }));
}

/** What an approval link asserts. */
export type ApprovalLinkClaims = {
  approvalId: string;
  /** The approver's id, as in the approval record (and `approver:<id>` in the audit chain). */
  approver: string;
  expiresAtMs: number;
  argsHash: string;
};

/** Signs a link token for one approver of one approval with the keyring's current key. No task token inside. */
export function signApprovalLink(claims: ApprovalLinkClaims, keyring: Keyring): string {
  const { approvalId: id, approver: holder, expiresAtMs, argsHash: hash } = claims;
  return signSubjectLink('approval', { id, holder, expiresAtMs, hash }, keyring);
}

/** Why a link was refused. `args_mismatch` only when `argsHash` is given to compare with. */
export type ApprovalLinkFailure =
  | 'malformed'
  | 'unknown_key'
  | 'bad_signature'
  | 'expired'
  | 'wrong_approval'
  | 'args_mismatch';

/** The outcome of verifying a link: the claims (and the key that signed them) or why it was refused. */
export type ApprovalLinkVerification =
  | { ok: true; claims: ApprovalLinkClaims & { kid: string } }
  | { ok: false; reason: ApprovalLinkFailure };

const RENAMED: Record<SubjectLinkFailure, ApprovalLinkFailure> = {
  malformed: 'malformed',
  unknown_key: 'unknown_key',
  bad_signature: 'bad_signature',
  expired: 'expired',
  wrong_subject: 'wrong_approval',
  hash_mismatch: 'args_mismatch',
};

/**
 * Verifies a link token: signature (any known kid, constant-time), then approval id and args hash when
 * given, then expiry (expired when `nowMs >= expiresAtMs`). Verify before loading the approval record, so
 * a forged link learns nothing about which approvals exist.
 */
export function verifyApprovalLink(
  token: unknown,
  keyring: Keyring,
  options: { nowMs: number; approvalId?: string; argsHash?: string },
): ApprovalLinkVerification {
  const result = verifySubjectLink('approval', token, keyring, {
    nowMs: options.nowMs,
    ...(options.approvalId !== undefined ? { id: options.approvalId } : {}),
    ...(options.argsHash !== undefined ? { hash: options.argsHash } : {}),
  });
  if (!result.ok) return { ok: false, reason: RENAMED[result.reason] };
  const { id, holder, expiresAtMs, hash, kid } = result.claims;
  return { ok: true, claims: { approvalId: id, approver: holder, expiresAtMs, argsHash: hash, kid } };
}
