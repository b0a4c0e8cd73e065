import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { ApprovalLinkError } from './errors.ts';
import type { Keyring } from './keyring.ts';
import { openToken, signToken } from './signed-token.ts';

/** MAC domain of form nonces (distinct from links: a nonce is never accepted as a link, nor the reverse). */
const NONCE_DOMAIN = 'wf-approval/v1/form-nonce\n';

/** How long a rendered form stays usable by default: 15 minutes. */
export const FORM_NONCE_MAX_AGE_MS = 15 * 60_000;
/** Tolerated clock difference between the function that rendered and the one that decides. */
const CLOCK_SKEW_MS = 60_000;

const NonceSchema = z.strictObject({
  v: z.literal(1),
  kid: z.string(),
  approvalId: z.string().min(1).max(256),
  approver: z.string().min(1).max(256),
  iat: z.number().int().nonnegative(),
  n: z.string().min(1),
});

/**
 * Issues a signed, stateless nonce for one render of one approval's page for one approver. It proves the
 * decision comes from a recent render; single use of the decision is the store's conditional write.
 */
export function issueFormNonce(
  input: { approvalId: string; approver: string; nowMs: number },
  keyring: Keyring,
): string {
  const payload = {
    v: 1 as const,
    kid: keyring.current.kid,
    approvalId: input.approvalId,
    approver: input.approver,
    iat: input.nowMs,
    n: randomBytes(16).toString('base64url'),
  };
  const parsed = NonceSchema.safeParse(payload);
  if (!parsed.success) {
    throw new ApprovalLinkError(`invalid form nonce input: ${parsed.error.issues[0]?.message}`, {
      approvalId: input.approvalId,
    });
  }
  return signToken(NONCE_DOMAIN, parsed.data, keyring);
}

/** Why a form nonce was refused. */
export type FormNonceFailure =
  | 'malformed'
  | 'unknown_key'
  | 'bad_signature'
  | 'wrong_approval'
  | 'wrong_approver'
  | 'expired'
  | 'not_yet_valid';

/**
 * Verifies a form nonce against the approval and the approver of the link it was posted with (pass the
 * link's verified `claims.approver`), and its age against `maxAgeMs` (default 15 minutes).
 */
export function verifyFormNonce(
  nonce: unknown,
  keyring: Keyring,
  options: { approvalId: string; approver: string; nowMs: number; maxAgeMs?: number },
): { ok: true; issuedAtMs: number } | { ok: false; reason: FormNonceFailure } {
  const opened = openToken(nonce, NONCE_DOMAIN, keyring);
  if (!opened.ok) return opened;
  const parsed = NonceSchema.safeParse(opened.payload);
  if (!parsed.success) return { ok: false, reason: 'malformed' };
  const { approvalId, approver, iat } = parsed.data;
  if (approvalId !== options.approvalId) return { ok: false, reason: 'wrong_approval' };
  if (approver !== options.approver) return { ok: false, reason: 'wrong_approver' };
  if (iat > options.nowMs + CLOCK_SKEW_MS) return { ok: false, reason: 'not_yet_valid' };
  if (options.nowMs - iat > (options.maxAgeMs ?? FORM_NONCE_MAX_AGE_MS))
    return { ok: false, reason: 'expired' };
  return { ok: true, issuedAtMs: iat };
}
