import { describe, expect, it } from 'vitest';
import { openSealedToken, sealToken } from '../../shared/approvals/index.ts';
import { KEY_2024, KEY_2025, keyring, OTHER_KEY } from './fixtures.ts';

const DOMAIN = 'wf-test/v1/sealed\n';
const bound = { approvalId: 'apr_123', approver: 'bob@example.com', nonce: 'n1' };
const value = { approval: { approvalId: 'apr_123', taskToken: 'secret-task-token' }, run: { rev: 4 } };
const open = (token: unknown, overrides: { domain?: string; bound?: Record<string, unknown> } = {}) =>
  openSealedToken(token, overrides.domain ?? DOMAIN, keyring, overrides.bound ?? bound, 10_000);

/** The token with one character of segment `index` changed. */
function altered(token: string, index: number): string {
  const parts = token.split('.');
  const segment = parts[index]!;
  // The last character of a base64url segment may carry padding bits: change the first.
  parts[index] = `${segment[0] === 'A' ? 'B' : 'A'}${segment.slice(1)}`;
  return parts.join('.');
}

describe('sealToken / openSealedToken', () => {
  it('opens what it sealed, and shows none of it', () => {
    // Act
    const token = sealToken(DOMAIN, value, keyring, bound);

    // Assess
    expect(open(token)).toEqual({ ok: true, value });
    expect(token).not.toContain('secret-task-token');
    expect(Buffer.from(token.split('.')[4]!, 'base64url').toString('latin1')).not.toContain('secret');
    expect(token.split('.').slice(0, 2)).toEqual(['s1', KEY_2025.kid]);
  });

  it('seals the same value differently every time', () => {
    expect(sealToken(DOMAIN, value, keyring, bound)).not.toBe(sealToken(DOMAIN, value, keyring, bound));
  });

  it('opens a token sealed with a previous key of the keyring', () => {
    // Prepare
    const token = sealToken(DOMAIN, value, { current: KEY_2024 }, bound);

    // Act / Assess
    expect(open(token)).toEqual({ ok: true, value });
  });

  it.each([1, 2, 3, 4, 5])('refuses a token with segment %i altered', (index) => {
    // Prepare
    const token = altered(sealToken(DOMAIN, value, keyring, bound), index);

    // Act
    const opened = open(token);

    // Assess: a changed key id names no key (or another); every other change fails the tag.
    expect(opened.ok).toBe(false);
  });

  it.each([
    ['another approval', { ...bound, approvalId: 'apr_456' }],
    ['another approver', { ...bound, approver: 'eve@example.com' }],
    ['another nonce', { ...bound, nonce: 'n2' }],
    ['nothing bound', {}],
  ])('refuses to open beside %s', (_name, other) => {
    // Prepare
    const token = sealToken(DOMAIN, value, keyring, bound);

    // Act / Assess
    expect(open(token, { bound: other })).toEqual({ ok: false, reason: 'bad_seal' });
  });

  it('refuses a token of another domain', () => {
    const token = sealToken('wf-test/v1/other\n', value, keyring, bound);

    expect(open(token)).toEqual({ ok: false, reason: 'bad_seal' });
  });

  it('refuses a token sealed with a key of the same id but another secret', () => {
    const token = sealToken(DOMAIN, value, { current: OTHER_KEY }, bound);

    expect(open(token)).toEqual({ ok: false, reason: 'bad_seal' });
  });

  it('refuses a token of an unknown key', () => {
    const token = sealToken(DOMAIN, value, { current: { kid: 'k1999', secret: OTHER_KEY.secret } }, bound);

    expect(open(token)).toEqual({ ok: false, reason: 'unknown_key' });
  });

  it.each([
    ['not a string', 42, 'malformed'],
    ['the wrong version', 's2.k2025.a.b.c.d', 'malformed'],
    ['too few segments', 's1.k2025.AAAA', 'malformed'],
    ['a non-canonical segment', 's1.k2025.AAAA=.AAAA.AAAA.AAAA', 'malformed'],
    ['too long', `s1.${'a'.repeat(10_001)}`, 'too_long'],
  ])('refuses %s', (_name, token, reason) => {
    expect(open(token)).toEqual({ ok: false, reason });
  });
});
