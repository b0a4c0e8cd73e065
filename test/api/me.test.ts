import { describe, expect, it } from 'vitest';
import { ownerKey } from '../../shared/credentials/owner-key.ts';
import { apiHarness } from './helpers.ts';

describe('GET /v1/me', () => {
  it("answers the caller's owner, principal, owner key and credential secret prefix, from authentication", async () => {
    // Prepare: an Auth0-style owner, whose key must be escaped for secret names and tags.
    const h = apiHarness({ owners: { alice: 'auth0|5f1c2e', bob: 'repo:acme/app:ref:refs/heads/main' } });

    // Act
    const alice = await h.alice.get('/v1/me');
    const bob = await h.bob.get('/v1/me');

    // Assess
    expect(alice.status).toBe(200);
    expect(alice.body).toEqual({
      owner: 'auth0|5f1c2e',
      principal: 'alice@laptop',
      ownerKey: ownerKey('auth0|5f1c2e'),
      secretPrefix: `wf/${ownerKey('auth0|5f1c2e')}/`,
    });
    expect(alice.body.ownerKey).not.toContain('|');
    expect(bob.body).toMatchObject({ owner: 'repo:acme/app:ref:refs/heads/main' });
    expect(bob.body.ownerKey).not.toBe(alice.body.ownerKey);
  });

  it('needs authentication', async () => {
    // Prepare
    const h = apiHarness();

    // Act
    const anonymous = await h.anonymous.get('/v1/me');

    // Assess
    expect(anonymous.status).toBe(401);
  });
});
