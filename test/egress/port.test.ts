import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgress, EgressPolicyError } from '../../shared/egress/index.ts';
import { scriptedResolver, startServer, type TestServer, useDialGuard } from './helpers.ts';

describe('createEgress', () => {
  useDialGuard();
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((req, res, body) => {
      res.setHeader('content-type', 'application/json');
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.statusCode = req.method === 'POST' ? 201 : 200;
      res.end(JSON.stringify({ method: req.method, path: req.url, body }));
    });
  });
  afterAll(async () => {
    await server.close();
  });
  const resolve = scriptedResolver({
    'a.test': ['127.0.0.1'],
    'b.test': ['127.0.0.1'],
    'c.test': ['127.0.0.1'],
  });
  const policy = () => ({ resolve, allowLoopbackPorts: [server.port] });

  it('returns status, lower-cased headers, decoded body text and the final URL', async () => {
    const egress = createEgress(policy());

    const response = await egress.request({
      method: 'POST',
      url: `http://a.test:${server.port}/items`,
      headers: { 'content-type': 'application/json' },
      body: '{"name":"x"}',
    });

    expect(response).toEqual({
      status: 201,
      headers: expect.objectContaining({ 'content-type': 'application/json', 'set-cookie': 'a=1, b=2' }),
      body: JSON.stringify({ method: 'POST', path: '/items', body: '{"name":"x"}' }),
      url: `http://a.test:${server.port}/items`,
    });
  });

  it.each([
    [['a.test', 'b.test'], ['b.test'], 'b.test', true],
    [['a.test', 'b.test'], ['b.test'], 'a.test', false],
    [['a.test', 'b.test'], ['c.test'], 'c.test', false],
    [undefined, ['c.test'], 'c.test', true],
    [undefined, ['c.test'], 'a.test', false],
    [['a.test'], undefined, 'a.test', true],
    [['a.test'], [], 'a.test', false],
  ])(
    'policy allowedHosts %j ∩ request allowedHosts %j: %s allowed %s',
    async (policyHosts, requestHosts, host, allowed) => {
      // Prepare
      const egress = createEgress({ ...policy(), ...(policyHosts ? { allowedHosts: policyHosts } : {}) });
      const sockets = server.sockets();

      // Act
      const outcome = await egress
        .request({
          method: 'GET',
          url: `http://${host}:${server.port}/`,
          ...(requestHosts ? { allowedHosts: requestHosts } : {}),
        })
        .then(
          (r) => r.status,
          (e: unknown) => e,
        );

      // Assess
      if (allowed) expect(outcome).toBe(200);
      else {
        expect(outcome).toMatchObject({ name: 'EgressDeniedError', reason: 'host_not_allowed' });
        expect(server.sockets()).toBe(sockets);
      }
    },
  );

  it('injects credential headers only for their bound origin', async () => {
    const egress = createEgress(policy());
    const before = server.requests.length;
    const credentialHeaders = [{ origin: `http://a.test:${server.port}`, name: 'X-API-Key', value: 'sk-a' }];

    await egress.request({ method: 'GET', url: `http://a.test:${server.port}/1`, credentialHeaders });
    await egress.request({ method: 'GET', url: `http://b.test:${server.port}/2`, credentialHeaders });

    expect(server.requests.slice(before).map((r) => r.headers['x-api-key'])).toEqual(['sk-a', undefined]);
  });

  it('strips forbidden model-supplied headers', async () => {
    const egress = createEgress(policy());
    const before = server.requests.length;

    await egress.request({
      method: 'GET',
      url: `http://a.test:${server.port}/`,
      headers: { cookie: 'session=stolen', 'x-forwarded-for': '10.0.0.1', 'x-ok': '1' },
    });

    const received = server.requests[before]!.headers;
    expect(received.cookie).toBeUndefined();
    expect(received['x-forwarded-for']).toBeUndefined();
    expect(received['x-ok']).toBe('1');
  });

  it('refuses a body above maxResponseBytes', async () => {
    const egress = createEgress({ ...policy(), maxResponseBytes: 10 });

    await expect(
      egress.request({ method: 'GET', url: `http://a.test:${server.port}/` }),
    ).rejects.toMatchObject({
      name: 'EgressLimitError',
      reason: 'response_too_large',
    });
  });

  it('refuses a metadata URL in production configuration without opening a socket', async () => {
    const egress = createEgress({ allowedHosts: ['*.example.com'] });

    await expect(
      egress.request({
        method: 'GET',
        url: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      }),
    ).rejects.toMatchObject({ name: 'EgressDeniedError', reason: 'metadata', host: '169.254.169.254' });
  });

  it('fails fast on a malformed policy', () => {
    expect(() => createEgress({ allowedHosts: ['https://api.example.com/'] })).toThrow(EgressPolicyError);
  });

  it('rejects a malformed request allowedHosts pattern', async () => {
    const egress = createEgress(policy());

    await expect(
      egress.request({ method: 'GET', url: `http://a.test:${server.port}/`, allowedHosts: ['a.*.test'] }),
    ).rejects.toBeInstanceOf(EgressPolicyError);
  });
});
