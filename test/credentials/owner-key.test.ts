import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isOwnerSecret,
  MAX_READABLE_OWNER_KEY,
  ownerKey,
  ownerSecretPrefix,
} from '../../shared/credentials/owner-key.ts';
import { OwnerIdSchema } from '../../shared/schemas/common.ts';

/** Secret names: https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_CreateSecret.html */
const SECRET_NAME_PART = /^[A-Za-z0-9_+=.@-]+$/;
/** Session tag values: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html */
const SESSION_TAG_VALUE = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]{1,256}$/u;

const ownerChars = fc.constantFrom(...'aZ09._:@+=|/-'.split(''), 'é', '€', ' ', '#', '=');

describe('ownerKey', () => {
  it.each([
    ['alice', 'alice'],
    ['local', 'local'],
    ['auth0|abc', 'auth0=7Cabc'],
    ['repo:org/x:ref:refs/heads/main', 'repo=3Aorg=2Fx=3Aref=3Arefs=2Fheads=2Fmain'],
    ['123456789012:role:ci=3Dx', '123456789012=3Arole=3Aci=3D3Dx'],
    ['a=7Cb', 'a=3D7Cb'],
  ])('writes %s as %s', (owner, key) => {
    expect(ownerKey(owner)).toBe(key);
  });

  it('hashes an owner whose escaped form is too long, into a form no escaped key can take', () => {
    const owner = `repo:${'org/'.repeat(30)}x`;
    const key = ownerKey(owner);
    expect(key).toMatch(/^=h[a-z2-7]{52}$/);
    expect(ownerKey(`${owner}y`)).not.toBe(key);
  });

  it('keeps every key usable in a secret name and as a session tag value', () => {
    fc.assert(
      fc.property(fc.string({ unit: ownerChars, minLength: 1, maxLength: 128 }), (owner) => {
        const key = ownerKey(owner);
        expect(key).toMatch(SECRET_NAME_PART);
        expect(key).toMatch(SESSION_TAG_VALUE);
        expect(key.length).toBeLessThanOrEqual(MAX_READABLE_OWNER_KEY);
      }),
    );
  });

  it('never gives two owners the same key (escaped and hashed forms alike)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: ownerChars, minLength: 1, maxLength: 128 }),
        fc.string({ unit: ownerChars, minLength: 1, maxLength: 128 }),
        (a, b) => {
          fc.pre(a !== b);
          expect(ownerKey(a)).not.toBe(ownerKey(b));
        },
      ),
    );
  });

  it('leaves an owner that is already safe as it is', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_+.@-]{1,128}$/), (owner) => {
        expect(ownerKey(owner)).toBe(owner);
      }),
    );
  });

  it('accepts JWT subjects with | and / as owners', () => {
    expect(OwnerIdSchema.safeParse('auth0|abc').success).toBe(true);
    expect(OwnerIdSchema.safeParse('repo:org/x:ref:refs/heads/main').success).toBe(true);
    expect(OwnerIdSchema.safeParse('a#b').success).toBe(false);
  });
});

describe('isOwnerSecret', () => {
  it.each([
    ['wf/alice/site-token', true],
    ['arn:aws:secretsmanager:eu-west-1:123456789012:secret:wf/alice/site-token-AbCdEf', true],
    ['wf/alice/', false],
    ['wf/alice', false],
    ['wf/alice-evil/site-token', false],
    ['wf/bob/site-token', false],
    ['team/alice/site-token', false],
    ['wf/site-token', false],
  ])('for owner alice, %s is %s', (secret, own) => {
    expect(isOwnerSecret('wf/', 'alice', secret)).toBe(own);
  });

  it("never lets one owner's prefix cover another owner's secrets", () => {
    expect(ownerSecretPrefix('wf/', 'auth0|abc')).toBe('wf/auth0=7Cabc/');
    expect(isOwnerSecret('wf/', 'a', `wf/${ownerKey('a/b')}/x`)).toBe(false);
    expect(isOwnerSecret('wf/', 'a/b', 'wf/a/b/x')).toBe(false);
  });
});
