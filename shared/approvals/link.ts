import * as z from 'zod';
import { canonicalJson, sha256Hex } from '../audit/index.ts';
import { ApprovalLinkError } from './errors.ts';
import type { Keyring } from './keyring.ts';
import { openToken, signToken } from './signed-token.ts';

/** MAC domain of approval links. */
const LINK_DOMAIN = 'wf-approval/v1/link\n';

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

const ClaimsSchema = z.strictObject({
  v: z.literal(1),
  kid: z.string(),
  approvalId: z.string().min(1).max(256),
  approver: z.string().min(1).max(256),
  exp: z.number().int().nonnegative(),
  argsHash: z.string().regex(/^[0-9a-f]{64}$/),
});

/** Signs a link token for one approver of one approval with the keyring's current key. No task token inside. */
export function signApprovalLink(claims: ApprovalLinkClaims, keyring: Keyring): string {
  const payload = {
    v: 1 as const,
    kid: keyring.current.kid,
    approvalId: claims.approvalId,
    approver: claims.approver,
    exp: claims.expiresAtMs,
    argsHash: claims.argsHash,
  };
  const parsed = ClaimsSchema.safeParse(payload);
  if (!parsed.success) {
    throw new ApprovalLinkError(`invalid approval link claims: ${parsed.error.issues[0]?.message}`, {
      approvalId: claims.approvalId,
      path: parsed.error.issues[0]?.path,
    });
  }
  return signToken(LINK_DOMAIN, parsed.data, keyring);
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
  const opened = openToken(token, LINK_DOMAIN, keyring);
  if (!opened.ok) return opened;
  const parsed = ClaimsSchema.safeParse(opened.payload);
  if (!parsed.success) return { ok: false, reason: 'malformed' };
  const { kid, approvalId, approver, exp, argsHash: hash } = parsed.data;
  if (options.approvalId !== undefined && options.approvalId !== approvalId) {
    return { ok: false, reason: 'wrong_approval' };
  }
  if (options.argsHash !== undefined && options.argsHash !== hash)
    return { ok: false, reason: 'args_mismatch' };
  if (options.nowMs >= exp) return { ok: false, reason: 'expired' };
  return { ok: true, claims: { approvalId, approver, expiresAtMs: exp, argsHash: hash, kid } };
}
