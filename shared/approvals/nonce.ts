/**
 * Form nonces: a signed, stateless token per render of a page (approval or human task) for one holder. It proves
 * the POST follows a recent render of this subject's page for this holder; single use is the store's.
 */
import { randomBytes } from 'node:crypto';
import * as z from '../zod.ts';
import { ApprovalLinkError } from './errors.ts';
import type { Keyring } from './keyring.ts';
import { openToken, signToken } from './signed-token.ts';
import { type LinkSubject, SUBJECTS } from './subjects.ts';

/** How long a rendered form stays usable by default: 15 minutes. */
export const FORM_NONCE_MAX_AGE_MS = 15 * 60_000;
/** Tolerated clock difference between the function that rendered and the one that decides. */
const CLOCK_SKEW_MS = 60_000;

const nonceSchema = (subject: LinkSubject, extra: Record<string, z.ZodMiniType> = {}) =>
  z.strictObject({
    v: z.literal(1),
    kid: z.string(),
    [SUBJECTS[subject].id]: z.string().check(z.minLength(1), z.maxLength(256)),
    [SUBJECTS[subject].holder]: z.string().check(z.minLength(1), z.maxLength(256)),
    iat: z.number().check(z.int(), z.nonnegative()),
    n: z.string().check(z.minLength(1)),
    ...extra,
  }) as unknown as z.ZodMiniType<Record<string, unknown>>;

/**
 * What an approval page saw of the workflow when it rendered: the head's revision and whether the action was
 * still granted. Signed into the form's nonce, so the decision can be recorded on the condition that the head is
 * still at that revision, and say what the page said, without reading the head again.
 */
export type PageHeadClaim = { rev: number; grant: 'granted' | 'withdrawn' };
const HeadClaimSchema = z.strictObject({
  rev: z.number().check(z.int(), z.nonnegative()),
  grant: z.enum(['granted', 'withdrawn']),
});

const SCHEMAS: Record<LinkSubject, z.ZodMiniType<Record<string, unknown>>> = {
  approval: nonceSchema('approval', { head: z.optional(HeadClaimSchema) }),
  human_task: nonceSchema('human_task'),
};

/** Why a form nonce was refused. */
export type FormNonceFailure =
  | 'malformed'
  | 'unknown_key'
  | 'bad_signature'
  | 'wrong_approval'
  | 'wrong_approver'
  | 'expired'
  | 'not_yet_valid';

/** Issues a nonce for one render of `subject`'s page (`id`) for `holder`. */
export function issueSubjectNonce(
  subject: LinkSubject,
  input: { id: string; holder: string; nowMs: number },
  keyring: Keyring,
  extra: Record<string, unknown> = {},
): string {
  const spec = SUBJECTS[subject];
  const payload = {
    v: 1,
    kid: keyring.current.kid,
    [spec.id]: input.id,
    [spec.holder]: input.holder,
    iat: input.nowMs,
    n: randomBytes(16).toString('base64url'),
    ...extra,
  };
  const parsed = SCHEMAS[subject].safeParse(payload);
  if (!parsed.success) {
    throw new ApprovalLinkError(`invalid form nonce input: ${parsed.error.issues[0]?.message}`, {
      [spec.id]: input.id,
    });
  }
  return signToken(spec.nonce, parsed.data, keyring);
}

/**
 * Verifies a nonce against the subject and the holder of the link it was posted with (pass the link's verified
 * holder), and its age against `maxAgeMs` (default 15 minutes). `wrong_approval`/`wrong_approver` name the
 * subject id and the holder whatever the subject is.
 */
export function verifySubjectNonce(
  subject: LinkSubject,
  nonce: unknown,
  keyring: Keyring,
  options: { id: string; holder: string; nowMs: number; maxAgeMs?: number },
):
  | { ok: true; issuedAtMs: number; claims: Record<string, unknown> }
  | { ok: false; reason: FormNonceFailure } {
  const spec = SUBJECTS[subject];
  const opened = openToken(nonce, spec.nonce, keyring);
  if (!opened.ok) return opened;
  const parsed = SCHEMAS[subject].safeParse(opened.payload);
  if (!parsed.success) return { ok: false, reason: 'malformed' };
  const iat = parsed.data.iat as number;
  if (parsed.data[spec.id] !== options.id) return { ok: false, reason: 'wrong_approval' };
  if (parsed.data[spec.holder] !== options.holder) return { ok: false, reason: 'wrong_approver' };
  if (iat > options.nowMs + CLOCK_SKEW_MS) return { ok: false, reason: 'not_yet_valid' };
  if (options.nowMs - iat > (options.maxAgeMs ?? FORM_NONCE_MAX_AGE_MS))
    return { ok: false, reason: 'expired' };
  return { ok: true, issuedAtMs: iat, claims: parsed.data };
}

/**
 * Issues a signed, stateless nonce for one render of one approval's page for one approver. It proves the
 * decision comes from a recent render; single use of the decision is the store's conditional write.
 */
export function issueFormNonce(
  input: { approvalId: string; approver: string; nowMs: number; head?: PageHeadClaim | undefined },
  keyring: Keyring,
): string {
  return issueSubjectNonce(
    'approval',
    { id: input.approvalId, holder: input.approver, nowMs: input.nowMs },
    keyring,
    input.head ? { head: { rev: input.head.rev, grant: input.head.grant } } : {},
  );
}

/**
 * Verifies a form nonce against the approval and the approver of the link it was posted with (pass the
 * link's verified `claims.approver`), and its age against `maxAgeMs` (default 15 minutes).
 */
export function verifyFormNonce(
  nonce: unknown,
  keyring: Keyring,
  options: { approvalId: string; approver: string; nowMs: number; maxAgeMs?: number },
): { ok: true; issuedAtMs: number; head?: PageHeadClaim } | { ok: false; reason: FormNonceFailure } {
  const { approvalId, approver, ...rest } = options;
  const verified = verifySubjectNonce('approval', nonce, keyring, {
    id: approvalId,
    holder: approver,
    ...rest,
  });
  if (!verified.ok) return verified;
  const head = verified.claims.head as PageHeadClaim | undefined;
  return { ok: true, issuedAtMs: verified.issuedAtMs, ...(head ? { head } : {}) };
}
