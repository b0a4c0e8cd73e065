import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ApprovalLinkError,
  type ApprovalLinkFailure,
  argsHash,
  issueFormNonce,
  signApprovalLink,
  verifyApprovalLink,
} from '../../shared/approvals/index.ts';
import { KEY_2024, KEY_2025, keyring, NOW, OTHER_KEY } from './fixtures.ts';

const hash = argsHash('send_email', { to: 'a@example.com', subject: 'Hi' });
const claims = {
  approvalId: 'apr_123',
  approver: 'bob@example.com',
  expiresAtMs: NOW + 3_600_000,
  argsHash: hash,
};

/** Flips one character of a base64url segment to another valid one. */
function flip(segment: string, at: number): string {
  const c = segment[at] === 'A' ? 'B' : 'A';
  return segment.slice(0, at) + c + segment.slice(at + 1);
}

describe('argsHash', () => {
  it('is the SHA-256 hex of the canonical JSON of { tool, args }, independent of key order', () => {
    // Act / Assess
    expect(argsHash('t', { b: 1, a: [1, { y: 2, x: 1 }] })).toBe(
      argsHash('t', { a: [1, { x: 1, y: 2 }], b: 1 }),
    );
    expect(argsHash('t', { b: 1, a: 'x' })).toBe(
      createHash('sha256').update('{"args":{"a":"x","b":1},"tool":"t"}').digest('hex'),
    );
  });

  it('hashes missing arguments as null', () => {
    // Act / Assess
    expect(argsHash('t', undefined)).toBe(
      createHash('sha256').update('{"args":null,"tool":"t"}').digest('hex'),
    );
  });

  it('changes with the tool or any argument value', () => {
    // Act
    const hashes = new Set([
      argsHash('send_email', { to: 'a' }),
      argsHash('send_sms', { to: 'a' }),
      argsHash('send_email', { to: 'b' }),
      argsHash('send_email', { to: 'a', cc: null }),
    ]);
    // Assess
    expect(hashes.size).toBe(4);
  });
});

describe('signApprovalLink / verifyApprovalLink', () => {
  it('round-trips the claims and names the signing key', () => {
    // Act
    const token = signApprovalLink(claims, keyring);
    const result = verifyApprovalLink(token, keyring, { nowMs: NOW, approvalId: 'apr_123', argsHash: hash });
    // Assess
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(result).toEqual({ ok: true, claims: { ...claims, kid: 'k2025' } });
  });

  it('carries no task token or other secret: the payload is only the claims', () => {
    // Act
    const token = signApprovalLink(claims, keyring);
    const payload = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8'));
    // Assess
    expect(Object.keys(payload).sort()).toEqual(['approvalId', 'approver', 'argsHash', 'exp', 'kid', 'v']);
  });

  it('verifies a link signed with a previous key after rotation', () => {
    // Prepare
    const oldToken = signApprovalLink(claims, { current: KEY_2024 });
    // Act
    const result = verifyApprovalLink(oldToken, keyring, { nowMs: NOW });
    // Assess
    expect(result).toMatchObject({ ok: true, claims: { kid: 'k2024' } });
  });

  it('refuses a link whose key was retired', () => {
    // Prepare
    const oldToken = signApprovalLink(claims, { current: KEY_2024 });
    // Act / Assess
    expect(verifyApprovalLink(oldToken, { current: KEY_2025 }, { nowMs: NOW })).toEqual({
      ok: false,
      reason: 'unknown_key',
    });
  });

  const token = signApprovalLink(claims, keyring);
  const [payload, signature] = token.split('.') as [string, string];
  const forgedPayload = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), approver: 'mallory' }),
  ).toString('base64url');

  it.each<[string, unknown, ApprovalLinkFailure, { approvalId?: string; argsHash?: string; nowMs?: number }]>(
    [
      ['an empty string', '', 'malformed', {}],
      ['a non-string', 42, 'malformed', {}],
      ['three segments', `${token}.x`, 'malformed', {}],
      ['a payload that is not base64url', `a+b.${signature}`, 'malformed', {}],
      [
        'a payload that is not JSON',
        `${Buffer.from('nope').toString('base64url')}.${signature}`,
        'malformed',
        {},
      ],
      ['an oversized token', `${'a'.repeat(5000)}.${signature}`, 'malformed', {}],
      ['an altered payload', `${forgedPayload}.${signature}`, 'bad_signature', {}],
      ['an altered signature', `${payload}.${flip(signature, 5)}`, 'bad_signature', {}],
      ['a truncated signature', `${payload}.${signature.slice(0, 20)}`, 'bad_signature', {}],
      [
        'a signature by another secret under the same kid',
        signApprovalLink(claims, { current: OTHER_KEY }),
        'bad_signature',
        {},
      ],
      [
        'an unknown kid',
        signApprovalLink(claims, { current: { ...KEY_2025, kid: 'nope' } }),
        'unknown_key',
        {},
      ],
      [
        'a form nonce presented as a link',
        issueFormNonce({ approvalId: 'apr_123', approver: 'bob@example.com', nowMs: NOW }, keyring),
        'bad_signature',
        {},
      ],
      ['another approval', token, 'wrong_approval', { approvalId: 'apr_999' }],
      ['other arguments', token, 'args_mismatch', { argsHash: argsHash('send_email', { to: 'x' }) }],
      ['the expiry instant', token, 'expired', { nowMs: claims.expiresAtMs }],
      ['a later time', token, 'expired', { nowMs: claims.expiresAtMs + 1 }],
    ],
  )('refuses %s (%s)', (_label, candidate, reason, options) => {
    // Act
    const result = verifyApprovalLink(candidate, keyring, { nowMs: NOW, ...options });
    // Assess
    expect(result).toEqual({ ok: false, reason });
  });

  it('accepts a link one millisecond before it expires', () => {
    // Act / Assess
    expect(verifyApprovalLink(token, keyring, { nowMs: claims.expiresAtMs - 1 }).ok).toBe(true);
  });

  it('refuses a non-canonical spelling of a valid signature', () => {
    // Prepare: the last base64url character of 32 bytes carries 2 padding bits
    const last = signature.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1]!;
    const variant = `${payload}.${signature.slice(0, -1)}${sibling}`;
    // Act / Assess
    expect(Buffer.from(variant.split('.')[1]!, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    expect(verifyApprovalLink(variant, keyring, { nowMs: NOW })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it.each([
    ['an empty approval id', { approvalId: '' }],
    ['a malformed args hash', { argsHash: 'xyz' }],
    ['a fractional expiry', { expiresAtMs: 1.5 }],
  ])('refuses to sign %s', (_label, patch) => {
    // Act / Assess
    expect(() => signApprovalLink({ ...claims, ...patch }, keyring)).toThrow(ApprovalLinkError);
  });
});
