import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  AuthConfigError,
  apiKeyAuthenticator,
  createApiApp,
  FEDERATED_USER_REFUSED,
  iamAuthenticator,
  jwtAuthenticator,
  ownerFromIamArn,
} from '../../shared/api/index.ts';
import { FixedClock, randomIds, testStore } from '../support/store.ts';
import { apiHarness, clientFor, RecordingExecutions, RecordingTriggerSync } from './helpers.ts';

const iamEvent = (accountId: string, userArn: string) => ({
  event: {
    requestContext: { authorizer: { iam: { accountId, userArn, accessKey: 'AKIA…', callerId: 'AROA…' } } },
  },
});
const jwtEvent = (claims: Record<string, unknown>) => ({
  event: { requestContext: { authorizer: { jwt: { claims, scopes: null } } } },
});
const request = new Request('http://localhost/v1/workflows');

describe('iamAuthenticator', () => {
  it.each([
    ['arn:aws:sts::123456789012:assumed-role/Deployer/ci-build-77', '123456789012:role:Deployer'],
    [
      'arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Admin_1a2b/alice@example.com',
      '123456789012:role:AWSReservedSSO_Admin_1a2b',
    ],
    ['arn:aws:iam::123456789012:user/alice', '123456789012:user:alice'],
    ['arn:aws:iam::123456789012:user/division/team/alice', '123456789012:user:alice'],
    ['arn:aws:iam::123456789012:root', '123456789012:root'],
    ['arn:aws-cn:sts::123456789012:assumed-role/Ops,Team=1/s', '123456789012:role:Ops=2CTeam=3D1'],
  ])('normalizes %s to the owner %s', (arn, owner) => {
    expect(ownerFromIamArn('123456789012', arn)).toBe(owner);
    expect(iamAuthenticator().authenticate(request, iamEvent('123456789012', arn))).toEqual({
      owner,
      principal: arn,
    });
  });

  it.each([
    ['another account’s ARN', '210987654321', 'arn:aws:iam::123456789012:user/alice'],
    ['a non-IAM ARN', '123456789012', 'arn:aws:s3:::bucket'],
    ['an incomplete assumed-role ARN', '123456789012', 'arn:aws:sts::123456789012:assumed-role'],
  ])('refuses %s', (_label, account, arn) => {
    expect(iamAuthenticator().authenticate(request, iamEvent(account, arn))).toBeUndefined();
  });

  it('refuses a federated user (its name is whatever GetFederationToken was given) with 403 saying why', () => {
    // Prepare: bob's IAM user may call sts:GetFederationToken and names the token after alice.
    const arn = 'arn:aws:sts::123456789012:federated-user/alice';

    // Act
    const attempt = () => iamAuthenticator().authenticate(request, iamEvent('123456789012', arn));

    // Assess
    expect(ownerFromIamArn('123456789012', arn)).toBeUndefined();
    expect(attempt).toThrow(FEDERATED_USER_REFUSED);
    expect(attempt).toThrow(expect.objectContaining({ status: 403, code: 'forbidden' }));
  });

  it('answers a federated user 403 at the API, and nothing is created', async () => {
    // Prepare
    const app = createApiApp({
      store: testStore(),
      executions: new RecordingExecutions(),
      clock: new FixedClock(),
      ids: randomIds,
      authenticator: iamAuthenticator(),
      triggerSync: new RecordingTriggerSync(),
    });
    const account = String(randomInt(1e11, 1e12 - 1));
    const client = clientFor(app, undefined);
    const federated = iamEvent(account, `arn:aws:sts::${account}:federated-user/someone`);
    const definition = {
      name: 'federated-flow',
      model: { id: 'claude-sonnet-5-5' },
      prompt: { system: 's' },
      allowedActions: [],
      trigger: { type: 'on_demand' },
      budget: { maxUsdPerRun: 1 },
    };

    // Act
    const created = await client.post('/v1/workflows', definition, { env: federated });
    const listed = await client.get('/v1/workflows', { env: federated });

    // Assess
    expect(created).toMatchObject({
      status: 403,
      body: { error: { code: 'forbidden', message: FEDERATED_USER_REFUSED } },
    });
    expect(listed.status).toBe(403);
    const asUser = iamEvent(account, `arn:aws:iam::${account}:user/someone`);
    expect((await client.get('/v1/workflows', { env: asUser })).body.items).toEqual([]);
  });

  it('refuses a request without an IAM authorizer context (e.g. the local server)', () => {
    expect(iamAuthenticator().authenticate(request, { incoming: {} })).toBeUndefined();
    expect(iamAuthenticator().authenticate(request, undefined)).toBeUndefined();
  });

  it('fences the app by the normalized owner: two sessions of one role see the same workflows', async () => {
    const store = testStore();
    const app = createApiApp({
      store,
      executions: new RecordingExecutions(),
      clock: new FixedClock(),
      ids: randomIds,
      authenticator: iamAuthenticator(),
      triggerSync: new RecordingTriggerSync(),
    });
    const account = String(randomInt(1e11, 1e12 - 1));
    const session = (name: string) =>
      iamEvent(account, `arn:aws:sts::${account}:assumed-role/Builder/${name}`);
    const client = clientFor(app, undefined);
    const created = await client.post(
      '/v1/workflows',
      {
        name: 'iam-flow',
        model: { id: 'claude-sonnet-5-5' },
        prompt: { system: 's' },
        allowedActions: [],
        trigger: { type: 'on_demand' },
        budget: { maxUsdPerRun: 1 },
      },
      { env: session('one') },
    );
    expect(created.status).toBe(201);
    expect(created.body.workflow.owner).toBe(`${account}:role:Builder`);
    const listed = await client.get('/v1/workflows', { env: session('two') });
    expect(listed.body.items.map((w: { name: string }) => w.name)).toEqual(['iam-flow']);
    expect((await client.get('/v1/workflows')).status).toBe(401);
  });
});

describe('jwtAuthenticator', () => {
  it('takes the owner from sub by default and the principal from sub', () => {
    expect(
      jwtAuthenticator().authenticate(request, jwtEvent({ sub: 'user-123', iss: 'https://idp' })),
    ).toEqual({
      owner: 'user-123',
      principal: 'user-123',
    });
  });

  it.each([
    ['an Auth0 subject', 'auth0|5f7c8ec7c33c6c004bbafe82'],
    ['a GitHub OIDC subject', 'repo:octo-org/octo-repo:ref:refs/heads/main'],
  ])('accepts %s with | or / as the owner', (_label, sub) => {
    expect(jwtAuthenticator().authenticate(request, jwtEvent({ sub }))).toEqual({
      owner: sub,
      principal: sub,
    });
  });

  it('takes the owner from a configured claim', () => {
    const auth = jwtAuthenticator({ ownerClaim: 'custom:team' });
    expect(auth.authenticate(request, jwtEvent({ sub: 'user-123', 'custom:team': 'payments' }))).toEqual({
      owner: 'payments',
      principal: 'user-123',
    });
  });

  it.each([
    ['no sub', { team: 'x' }],
    ['no owner claim', { sub: 'user-1' }],
    ['an owner claim that is not an owner id', { sub: 'user-1', team: 'has spaces/and slashes' }],
  ])('refuses a token with %s', (_label, claims) => {
    expect(jwtAuthenticator({ ownerClaim: 'team' }).authenticate(request, jwtEvent(claims))).toBeUndefined();
  });
});

describe('apiKeyAuthenticator', () => {
  const keysFile = JSON.stringify({ keys: { 'local-key-0123456789': { owner: 'alice' } } });
  const withAuthorization = (value: string) =>
    new Request('http://localhost/v1/workflows', { headers: { authorization: value } });

  it('accepts a key from the file, with any case of Bearer', () => {
    const auth = apiKeyAuthenticator(keysFile);
    expect(auth.authenticate(withAuthorization('Bearer local-key-0123456789'), undefined)).toEqual({
      owner: 'alice',
      principal: 'alice',
    });
    expect(auth.authenticate(withAuthorization('bearer local-key-0123456789'), undefined)).toEqual({
      owner: 'alice',
      principal: 'alice',
    });
  });

  it.each([
    'Bearer local-key-012345678',
    'Bearer local-key-0123456789x',
    'Basic local-key-0123456789',
    'local-key-0123456789',
    '',
  ])('refuses %j', (value) => {
    expect(apiKeyAuthenticator(keysFile).authenticate(withAuthorization(value), undefined)).toBeUndefined();
  });

  it.each([
    ['not JSON', '{keys'],
    ['a short key', JSON.stringify({ keys: { short: { owner: 'a' } } })],
    ['an invalid owner', JSON.stringify({ keys: { 'long-enough-key-123': { owner: 'a b' } } })],
    ['an unknown field', JSON.stringify({ keys: {}, extra: 1 })],
  ])('refuses a keys file with %s', (_label, text) => {
    expect(() => apiKeyAuthenticator(text)).toThrow(AuthConfigError);
  });

  it('answers a request without a valid key with 401 JSON and WWW-Authenticate', async () => {
    const h = apiHarness();
    for (const client of [h.anonymous, clientFor(h.app, 'not-a-key-of-the-file')]) {
      const reply = await client.get('/v1/workflows');
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe('unauthenticated');
      expect(reply.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect(
      (await h.anonymous.post('/local/events', { source: 'a', 'detail-type': 'b', detail: {} })).status,
    ).toBe(401);
    expect((await h.alice.get('/v1/workflows')).status).toBe(200);
  });
});
