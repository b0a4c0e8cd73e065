import { describe, expect, it } from 'vitest';
import { apiKeyAuthenticator, jwtAuthenticator } from '../../shared/api/index.ts';

const jwtEnv = (claims: Record<string, unknown>) => ({
  event: { requestContext: { authorizer: { jwt: { claims } } } },
});
const request = (key: string) => new Request('http://x/', { headers: { authorization: `Bearer ${key}` } });

describe('Function: jwtAuthenticator (delegated-jobs clients)', () => {
  it('makes a machine token (sub = client_id) a client with no owner of its own', async () => {
    const identity = await jwtAuthenticator().authenticate(
      new Request('http://x/'),
      jwtEnv({ sub: '4lfso2ai0cqnjh', client_id: '4lfso2ai0cqnjh', token_use: 'access' }),
    );
    expect(identity).toEqual({ owner: '', principal: 'client:4lfso2ai0cqnjh', client: '4lfso2ai0cqnjh' });
  });

  it("keeps a user's token (sub ≠ client_id) an owner", async () => {
    const identity = await jwtAuthenticator().authenticate(
      new Request('http://x/'),
      jwtEnv({ sub: 'user-1', client_id: 'app-client' }),
    );
    expect(identity).toEqual({ owner: 'user-1', principal: 'user-1' });
  });
});

describe('Function: apiKeyAuthenticator (delegated-jobs clients)', () => {
  it('gives a key with `client` a client identity of its owner', async () => {
    const auth = apiKeyAuthenticator(
      JSON.stringify({
        keys: {
          'owner-key-0123456789': { owner: 'alice' },
          'client-key-0123456789': { owner: 'alice', client: 'ci-bot' },
        },
      }),
    );
    expect(await auth.authenticate(request('client-key-0123456789'), {})).toEqual({
      owner: 'alice',
      principal: 'client:ci-bot',
      client: 'ci-bot',
    });
    expect(await auth.authenticate(request('owner-key-0123456789'), {})).toEqual({
      owner: 'alice',
      principal: 'alice',
    });
  });
});
