/**
 * Signed links for any subject (approval, human task): `base64url(canonicalJSON(claims)).base64url(HMAC)`,
 * with the subject's MAC domain and claim names. The approval-specific wrappers are in link.ts.
 */
import * as z from '../zod.ts';
import { ApprovalLinkError } from './errors.ts';
import type { Keyring } from './keyring.ts';
import { openToken, signToken } from './signed-token.ts';
import { type LinkSubject, SUBJECTS } from './subjects.ts';

/** What a link asserts, in subject-neutral names. */
export type SubjectLinkClaims = { id: string; holder: string; expiresAtMs: number; hash: string };

/** Why a link was refused. `hash_mismatch` only when a hash is given to compare with. */
export type SubjectLinkFailure =
  | 'malformed'
  | 'unknown_key'
  | 'bad_signature'
  | 'expired'
  | 'wrong_subject'
  | 'hash_mismatch';

export type SubjectLinkVerification =
  | { ok: true; claims: SubjectLinkClaims & { kid: string } }
  | { ok: false; reason: SubjectLinkFailure };

const schemas = new Map<LinkSubject, z.ZodMiniType<Record<string, unknown>>>();

function claimsSchema(subject: LinkSubject): z.ZodMiniType<Record<string, unknown>> {
  const cached = schemas.get(subject);
  if (cached) return cached;
  const spec = SUBJECTS[subject];
  const schema = z.strictObject({
    v: z.literal(1),
    kid: z.string(),
    [spec.id]: z.string().check(z.minLength(1), z.maxLength(256)),
    [spec.holder]: z.string().check(z.minLength(1), z.maxLength(256)),
    exp: z.number().check(z.int(), z.nonnegative()),
    [spec.hash]: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  }) as unknown as z.ZodMiniType<Record<string, unknown>>;
  schemas.set(subject, schema);
  return schema;
}

/** Signs a link token for one holder of one subject with the keyring's current key. */
export function signSubjectLink(subject: LinkSubject, claims: SubjectLinkClaims, keyring: Keyring): string {
  const spec = SUBJECTS[subject];
  const payload = {
    v: 1,
    kid: keyring.current.kid,
    [spec.id]: claims.id,
    [spec.holder]: claims.holder,
    exp: claims.expiresAtMs,
    [spec.hash]: claims.hash,
  };
  const parsed = claimsSchema(subject).safeParse(payload);
  if (!parsed.success) {
    throw new ApprovalLinkError(`invalid ${subject} link claims: ${parsed.error.issues[0]?.message}`, {
      [spec.id]: claims.id,
      path: parsed.error.issues[0]?.path,
    });
  }
  return signToken(spec.link, parsed.data, keyring);
}

/**
 * Verifies a link token: signature (any known kid, constant-time), then subject id and hash when given, then
 * expiry (expired when `nowMs >= exp`). Verify before loading anything, so a forged link learns nothing.
 */
export function verifySubjectLink(
  subject: LinkSubject,
  token: unknown,
  keyring: Keyring,
  options: { nowMs: number; id?: string; hash?: string },
): SubjectLinkVerification {
  const spec = SUBJECTS[subject];
  const opened = openToken(token, spec.link, keyring);
  if (!opened.ok) return opened;
  const parsed = claimsSchema(subject).safeParse(opened.payload);
  if (!parsed.success) return { ok: false, reason: 'malformed' };
  const claims = parsed.data;
  const id = claims[spec.id] as string;
  const hash = claims[spec.hash] as string;
  const exp = claims.exp as number;
  if (options.id !== undefined && options.id !== id) return { ok: false, reason: 'wrong_subject' };
  if (options.hash !== undefined && options.hash !== hash) return { ok: false, reason: 'hash_mismatch' };
  if (options.nowMs >= exp) return { ok: false, reason: 'expired' };
  return {
    ok: true,
    claims: { id, holder: claims[spec.holder] as string, expiresAtMs: exp, hash, kid: claims.kid as string },
  };
}
