import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type EgressPolicy, guardedFetch } from '../../shared/egress/index.ts';
import { scriptedResolver, startServer, type TestServer, useDialGuard } from './helpers.ts';

const servers: TestServer[] = [];
async function server(handler?: Parameters<typeof startServer>[0]): Promise<TestServer> {
  const started = await startServer(handler);
  servers.push(started);
  return started;
}
function redirect(res: http.ServerResponse, location: string, status = 302): void {
  res.writeHead(status, { location });
  res.end();
}

describe('guardedFetch redirects', () => {
  const guard = useDialGuard();
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it.each([
    [
      'a loopback literal on a port that is not a loopback port',
      (b: TestServer) => `http://127.0.0.1:${b.port}/`,
      'loopback',
    ],
    ['a decimal loopback literal', (b: TestServer) => `http://2130706433:${b.port}/`, 'loopback'],
    ['an IPv4-mapped loopback literal', (b: TestServer) => `http://[::ffff:7f00:1]:${b.port}/`, 'loopback'],
    ['a name resolving to loopback', (b: TestServer) => `http://evil.test:${b.port}/`, 'loopback'],
    ['a name resolving to 10.0.0.1', () => 'http://private.test/', 'private_address'],
    ['the metadata literal', () => 'http://169.254.169.254/latest/meta-data/iam/', 'metadata'],
    ['the IPv6 metadata literal', () => 'http://[fd00:ec2::254]/latest/meta-data/', 'metadata'],
    ['a private literal', () => 'http://10.0.0.1/', 'private_address'],
    ['localhost', (b: TestServer) => `http://localhost:${b.port}/`, 'blocked_host'],
    ['metadata.google.internal', () => 'http://metadata.google.internal/', 'blocked_host'],
    ['a file: URL', () => 'file:///etc/passwd', 'scheme'],
    ['a URL with userinfo', (b: TestServer) => `http://user:pw@127.0.0.1:${b.port}/`, 'userinfo'],
    ['a port outside the policy', () => 'http://public.test:25/', 'port'],
    ['an unparseable Location', () => 'http://[::1', 'invalid_redirect'],
  ])('refuses a redirect to %s, opening no socket there', async (_label, location, reason) => {
    // Prepare: A is reachable (its port is a loopback port); B listens but must never be reached.
    const b = await server();
    const a = await server((_req, res) => redirect(res, location(b)));
    const resolve = scriptedResolver({
      'a.test': ['127.0.0.1'],
      'evil.test': ['127.0.0.1'],
      'private.test': ['10.0.0.1'],
      'public.test': ['93.184.216.34'],
    });
    const policy: EgressPolicy = { resolve, allowLoopbackPorts: [a.port], allowedPorts: [80, 443, b.port] };

    // Act
    const error = await guardedFetch(`http://a.test:${a.port}/start`, { policy }).catch((e: unknown) => e);

    // Assess
    expect(error).toMatchObject({ name: 'EgressDeniedError', reason });
    expect(a.sockets()).toBe(1);
    expect(b.sockets()).toBe(0);
    expect(guard.dials).toEqual(['127.0.0.1']);
  });

  it('refuses a redirect to a host outside allowedHosts', async () => {
    const b = await server();
    const a = await server((_req, res) => redirect(res, `http://b.test:${b.port}/`));
    const resolve = scriptedResolver({ 'a.test': ['127.0.0.1'], 'b.test': ['127.0.0.1'] });

    const error = await guardedFetch(`http://a.test:${a.port}/`, {
      policy: { resolve, allowLoopbackPorts: [a.port, b.port], allowedHosts: ['a.test'] },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'EgressDeniedError', reason: 'host_not_allowed', host: 'b.test' });
    expect(b.sockets()).toBe(0);
  });

  it('refuses a redirect to a policy blocked host', async () => {
    const b = await server();
    const a = await server((_req, res) => redirect(res, `http://approvals.test:${b.port}/approve`));
    const resolve = scriptedResolver({ 'a.test': ['127.0.0.1'], 'approvals.test': ['127.0.0.1'] });

    const error = await guardedFetch(`http://a.test:${a.port}/`, {
      policy: { resolve, allowLoopbackPorts: [a.port, b.port], blockedHosts: ['approvals.test'] },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'EgressDeniedError', reason: 'blocked_host' });
    expect(b.sockets()).toBe(0);
  });

  it.each([
    [0, 1],
    [3, 4],
    [5, 6],
  ])('with maxRedirects %i, stops after %i requests', async (maxRedirects, requests) => {
    const a = await server((req, res) => redirect(res, `/hop${Number(req.url?.slice(4) || 0) + 1}`));

    const error = await guardedFetch(`${a.origin}/hop0`, {
      policy: { allowLoopbackPorts: [a.port], maxRedirects },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'EgressDeniedError', reason: 'too_many_redirects' });
    expect(a.requests).toHaveLength(requests);
  });

  it('follows exactly maxRedirects redirects and reports the final URL', async () => {
    const a = await server((req, res) => {
      const n = Number(req.url?.slice(4) || 0);
      if (n < 2) redirect(res, `/hop${n + 1}`);
      else res.end(`landed at ${n}`);
    });

    const response = await guardedFetch(`${a.origin}/hop0`, {
      policy: { allowLoopbackPorts: [a.port], maxRedirects: 2 },
    });

    expect(await response.text()).toBe('landed at 2');
    expect(response.url).toBe(`${a.origin}/hop2`);
    expect(response.redirected).toBe(true);
  });

  it('returns the redirect itself with redirect: manual, and refuses it with redirect: error', async () => {
    const a = await server((_req, res) => redirect(res, '/elsewhere', 301));
    const policy: EgressPolicy = { allowLoopbackPorts: [a.port] };

    const manual = await guardedFetch(`${a.origin}/`, { policy, redirect: 'manual' });
    const error = await guardedFetch(`${a.origin}/`, { policy, redirect: 'error' }).catch((e: unknown) => e);

    expect(manual.status).toBe(301);
    expect(manual.headers.get('location')).toBe('/elsewhere');
    expect(error).toMatchObject({ name: 'EgressDeniedError', reason: 'invalid_redirect' });
    expect(a.requests).toHaveLength(2);
  });

  it('never carries a credential header across origins, and re-injects it back on its own origin', async () => {
    // Prepare: A (the bound origin) → B (another port) → A again.
    const b = await server((_req, res) => redirect(res, `http://127.0.0.1:${a.port}/back`));
    const a = await server((req, res) => {
      if (req.url === '/start') redirect(res, `${b.origin}/landing`);
      else res.end('home');
    });
    const credentialHeaders = [{ origin: a.origin, name: 'X-API-Key', value: 'sk-secret' }];

    // Act
    const response = await guardedFetch(`${a.origin}/start`, {
      policy: { allowLoopbackPorts: [a.port, b.port] },
      credentialHeaders,
      headers: { 'x-trace': 'model-value' },
    });

    // Assess
    expect(await response.text()).toBe('home');
    expect(b.requests).toHaveLength(1);
    expect(b.requests[0]?.headers['x-api-key']).toBeUndefined();
    expect(b.requests[0]?.headers['x-trace']).toBe('model-value');
    expect(a.requests.map((r) => [r.url, r.headers['x-api-key']])).toEqual([
      ['/start', 'sk-secret'],
      ['/back', 'sk-secret'],
    ]);
  });

  it('re-injects the credential on a same-origin redirect', async () => {
    const a = await server((req, res) =>
      req.url === '/start' ? redirect(res, '/final', 307) : res.end('ok'),
    );

    await guardedFetch(`${a.origin}/start`, {
      policy: { allowLoopbackPorts: [a.port] },
      credentialHeaders: [{ origin: a.origin, name: 'Authorization', value: 'Bearer sk-secret' }],
    });

    expect(a.requests.map((r) => r.headers.authorization)).toEqual(['Bearer sk-secret', 'Bearer sk-secret']);
  });

  it('treats another host name on the same port as another origin', async () => {
    const a = await server((req, res) =>
      req.url === '/start' ? redirect(res, `http://localhost:${a.port}/x`) : res.end(),
    );
    const resolve = scriptedResolver({ localhost: ['127.0.0.1'] });

    await guardedFetch(`${a.origin}/start`, {
      policy: { resolve, allowLoopbackPorts: [a.port] },
      credentialHeaders: [{ origin: a.origin, name: 'X-API-Key', value: 'sk-secret' }],
    });

    expect(a.requests.map((r) => r.headers['x-api-key'])).toEqual(['sk-secret', undefined]);
  });

  it('drops a caller Authorization header on a cross-origin redirect (fetch spec)', async () => {
    const b = await server();
    const a = await server((_req, res) => redirect(res, `${b.origin}/`));

    await guardedFetch(`${a.origin}/`, {
      policy: { allowLoopbackPorts: [a.port, b.port] },
      headers: { authorization: 'Bearer caller' },
    });

    expect(a.requests[0]?.headers.authorization).toBe('Bearer caller');
    expect(b.requests[0]?.headers.authorization).toBeUndefined();
  });

  it.each([
    [303, 'POST', 'GET', '', undefined],
    [303, 'PUT', 'GET', '', undefined],
    [303, 'HEAD', 'HEAD', '', 'text/plain'],
    [302, 'POST', 'GET', '', undefined],
    [301, 'POST', 'GET', '', undefined],
    [302, 'PUT', 'PUT', 'payload', 'text/plain'],
    [307, 'POST', 'POST', 'payload', 'text/plain'],
    [308, 'PUT', 'PUT', 'payload', 'text/plain'],
  ])(
    'on %i after %s, follows with %s, body %j and content-type %s',
    async (status, method, nextMethod, nextBody, type) => {
      const a = await server((req, res) =>
        req.url === '/start' ? redirect(res, '/next', status) : res.end(),
      );
      const body = method === 'HEAD' ? null : 'payload';

      await guardedFetch(`${a.origin}/start`, {
        method,
        body,
        headers: { 'content-type': 'text/plain' },
        policy: { allowLoopbackPorts: [a.port] },
      });

      const next = a.requests[1];
      expect(next?.method).toBe(nextMethod);
      expect(next?.body).toBe(nextBody);
      expect(next?.headers['content-type']).toBe(type);
    },
  );

  it.each([
    [307, 'POST'],
    [308, 'PUT'],
    [302, 'PUT'],
    [302, 'POST'],
    [303, 'DELETE'],
    [301, 'PATCH'],
  ])(
    'never follows a %i after %s to another origin: nothing reaches the Location host',
    async (status, method) => {
      // Prepare: A redirects to B, another host on another port.
      const b = await server();
      const a = await server((_req, res) => redirect(res, `http://b.test:${b.port}/collect`, status));
      const resolve = scriptedResolver({ 'a.test': ['127.0.0.1'], 'b.test': ['127.0.0.1'] });

      // Act
      const error = await guardedFetch(`http://a.test:${a.port}/hook`, {
        method,
        body: 'confidential',
        policy: { resolve, allowLoopbackPorts: [a.port, b.port] },
      }).catch((e: unknown) => e);

      // Assess
      expect(error).toMatchObject({
        name: 'EgressDeniedError',
        reason: 'redirect_off_origin',
        host: 'b.test',
        delivery: { sent: true, method },
      });
      expect(a.requests).toHaveLength(1);
      expect(b.sockets()).toBe(0);
    },
  );

  it('refuses a sending request on another port of the same host, and follows it to a named host', async () => {
    const b = await server((_req, res) => res.end('landed'));
    const a = await server((req, res) =>
      redirect(res, req.url === '/port' ? `http://a.test:${b.port}/` : `http://b.test:${b.port}/`, 307),
    );
    const resolve = scriptedResolver({ 'a.test': ['127.0.0.1'], 'b.test': ['127.0.0.1'] });
    const policy: EgressPolicy = { resolve, allowLoopbackPorts: [a.port, b.port] };

    const otherPort = await guardedFetch(`http://a.test:${a.port}/port`, {
      method: 'POST',
      body: 'x',
      policy,
      unsafeRedirectHosts: ['b.test'],
    }).catch((e: unknown) => e);
    const named = await guardedFetch(`http://a.test:${a.port}/named`, {
      method: 'POST',
      body: 'x',
      policy,
      unsafeRedirectHosts: ['B.test'],
    });

    expect(otherPort).toMatchObject({ reason: 'redirect_off_origin', host: 'a.test' });
    expect(await named.text()).toBe('landed');
    expect(b.requests).toEqual([expect.objectContaining({ method: 'POST', body: 'x' })]);
  });

  it('still follows a read (GET, or OPTIONS without a body) to another origin', async () => {
    const b = await server((req, res) => res.end(`b got ${req.method}`));
    const a = await server((_req, res) => redirect(res, `${b.origin}/`, 307));
    const policy: EgressPolicy = { allowLoopbackPorts: [a.port, b.port] };

    const get = await guardedFetch(`${a.origin}/`, { policy });
    const options = await guardedFetch(`${a.origin}/`, { method: 'OPTIONS', policy });

    expect(await get.text()).toBe('b got GET');
    expect(await options.text()).toBe('b got OPTIONS');
  });

  it('keeps a connection pinned to the first checked answer of a rebinding resolver', async () => {
    // Prepare: first answer is allowed (loopback port), every later answer is private.
    const a = await server((_req, res) => res.end('pinned'));
    const resolve = scriptedResolver({ 'rebind.test': [['127.0.0.1'], ['10.0.0.1']] });

    // Act
    const response = await guardedFetch(`http://rebind.test:${a.port}/`, {
      policy: { resolve, allowLoopbackPorts: [a.port] },
    });

    // Assess: one resolution, its answer both checked and dialled.
    expect(await response.text()).toBe('pinned');
    expect(resolve.calls).toEqual(['rebind.test']);
    expect(guard.dials).toEqual(['127.0.0.1']);
  });

  it('resolves once per hop and refuses a hop whose new answer is private', async () => {
    const a = await server((_req, res) => redirect(res, '/next'));
    const resolve = scriptedResolver({ 'rebind.test': [['127.0.0.1'], ['10.0.0.1']] });

    const error = await guardedFetch(`http://rebind.test:${a.port}/start`, {
      policy: { resolve, allowLoopbackPorts: [a.port] },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({
      name: 'EgressDeniedError',
      reason: 'private_address',
      address: '10.0.0.1',
    });
    expect(resolve.calls).toEqual(['rebind.test', 'rebind.test']);
    expect(a.sockets()).toBe(1);
    expect(guard.dials).toEqual(['127.0.0.1']);
  });

  it('falls back to the next checked address when the first refuses the connection', async () => {
    const a = await server((_req, res) => res.end('v4'));
    // ::1 has no listener on this port: refused (or unreachable without IPv6), then 127.0.0.1 answers.
    const resolve = scriptedResolver({ localhost: ['::1', '127.0.0.1'] });

    const response = await guardedFetch(`http://localhost:${a.port}/`, {
      policy: { resolve, allowLoopbackPorts: [a.port] },
    });

    expect(await response.text()).toBe('v4');
    expect(guard.dials).toEqual(['::1', '127.0.0.1']);
  });
});
