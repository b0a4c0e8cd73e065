import { describe, expect, it } from 'vitest';
import {
  FORM_NONCE_MAX_AGE_MS,
  type FormNonceFailure,
  issueFormNonce,
  signApprovalLink,
  verifyFormNonce,
} from '../../shared/approvals/index.ts';
import { KEY_2024, keyring, NOW } from './fixtures.ts';

const binding = { approvalId: 'apr_123', approver: 'bob@example.com' };

describe('issueFormNonce / verifyFormNonce', () => {
  it('verifies a fresh nonce for the same approval and approver', () => {
    // Prepare
    const nonce = issueFormNonce({ ...binding, nowMs: NOW }, keyring);
    // Act
    const result = verifyFormNonce(nonce, keyring, { ...binding, nowMs: NOW + 60_000 });
    // Assess
    expect(result).toEqual({ ok: true, issuedAtMs: NOW });
  });

  it('issues a distinct nonce per render', () => {
    // Act
    const a = issueFormNonce({ ...binding, nowMs: NOW }, keyring);
    const b = issueFormNonce({ ...binding, nowMs: NOW }, keyring);
    // Assess
    expect(a).not.toBe(b);
  });

  it('defaults to a 15-minute lifetime', () => {
    // Prepare
    const nonce = issueFormNonce({ ...binding, nowMs: NOW }, keyring);
    // Act / Assess
    expect(FORM_NONCE_MAX_AGE_MS).toBe(15 * 60_000);
    expect(verifyFormNonce(nonce, keyring, { ...binding, nowMs: NOW + FORM_NONCE_MAX_AGE_MS }).ok).toBe(true);
    expect(verifyFormNonce(nonce, keyring, { ...binding, nowMs: NOW + FORM_NONCE_MAX_AGE_MS + 1 })).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  const nonce = issueFormNonce({ ...binding, nowMs: NOW }, keyring);

  it.each<[string, unknown, FormNonceFailure, Partial<Parameters<typeof verifyFormNonce>[2]>]>([
    ['garbage', 'not-a-nonce', 'malformed', {}],
    ['a missing field', undefined, 'malformed', {}],
    [
      'an altered nonce',
      `${nonce.slice(0, 10)}${nonce[10] === 'A' ? 'B' : 'A'}${nonce.slice(11)}`,
      'bad_signature',
      {},
    ],
    [
      'a retired key',
      issueFormNonce({ ...binding, nowMs: NOW }, { current: { ...KEY_2024, kid: 'gone' } }),
      'unknown_key',
      {},
    ],
    [
      'a link presented as a nonce',
      signApprovalLink({ ...binding, expiresAtMs: NOW + 1, argsHash: 'a'.repeat(64) }, keyring),
      'bad_signature',
      {},
    ],
    ['another approval', nonce, 'wrong_approval', { approvalId: 'apr_999' }],
    ['another approver', nonce, 'wrong_approver', { approver: 'mallory@example.com' }],
    ['a custom shorter max age', nonce, 'expired', { nowMs: NOW + 61_000, maxAgeMs: 60_000 }],
    ['a nonce from the future', nonce, 'not_yet_valid', { nowMs: NOW - 5 * 60_000 }],
  ])('refuses %s (%s)', (_label, candidate, reason, options) => {
    // Act
    const result = verifyFormNonce(candidate, keyring, { ...binding, nowMs: NOW, ...options });
    // Assess
    expect(result).toEqual({ ok: false, reason });
  });

  it('tolerates a small clock skew between renderer and decider', () => {
    // Act / Assess
    expect(verifyFormNonce(nonce, keyring, { ...binding, nowMs: NOW - 30_000 }).ok).toBe(true);
  });
});
