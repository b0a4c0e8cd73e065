import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressPolicyError, FORBIDDEN_REQUEST_HEADERS, guardedFetch } from '../../shared/egress/index.ts';
import { startServer, type TestServer, useDialGuard } from './helpers.ts';

const EVIL = 'evil-value';

describe('guardedFetch request headers', () => {
  useDialGuard();
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((_req, res) => res.end('ok'));
  });
  afterAll(async () => {
    await server.close();
  });
  const send = async (init: Parameters<typeof guardedFetch>[1] = {}) => {
    const before = server.requests.length;
    const response = await guardedFetch(`${server.origin}/echo`, {
      ...init,
      policy: { allowLoopbackPorts: [server.port] },
    });
    await response.text();
    return server.requests[before]!;
  };

  it.each([
    'Host',
    'X-Forwarded-For',
    'X-Forwarded-Host',
    'X-Forwarded-Proto',
    'Forwarded',
    'Cookie',
    'Proxy-Authorization',
    'Proxy-Connection',
    'Connection',
    'Keep-Alive',
    'Transfer-Encoding',
    'Te',
    'Trailer',
    'Upgrade',
    'Expect',
    'Content-Length',
    'Via',
    'X-Real-IP',
    'True-Client-IP',
  ])('never sends a caller-supplied %s header', async (name) => {
    // Act
    const received = await send({ method: 'POST', body: 'x', headers: { [name]: EVIL, 'x-kept': 'yes' } });

    // Assess: the echo shows the caller's value did not arrive (the guard may set its own).
    expect(received.headers[name.toLowerCase()]).not.toBe(EVIL);
    expect(received.headers['x-kept']).toBe('yes');
  });

  it('sends Host from the URL, whatever the caller asked for', async () => {
    const received = await send({ headers: { Host: 'metadata.google.internal' } });

    expect(received.headers.host).toBe(`127.0.0.1:${server.port}`);
  });

  it('lists the forbidden names it documents', () => {
    expect([...FORBIDDEN_REQUEST_HEADERS]).toEqual(
      expect.arrayContaining([
        'host',
        'forwarded',
        'cookie',
        'proxy-authorization',
        'connection',
        'transfer-encoding',
        'te',
        'upgrade',
      ]),
    );
  });

  it('passes ordinary caller headers through', async () => {
    const received = await send({
      headers: {
        accept: 'application/json',
        'x-request-id': 'r-1',
        'user-agent': 'wf/1',
        authorization: 'Bearer t',
      },
    });

    expect(received.headers).toMatchObject({
      accept: 'application/json',
      'x-request-id': 'r-1',
      'user-agent': 'wf/1',
      authorization: 'Bearer t',
    });
  });

  it('drops a caller Authorization when a credential header is bound, and sends the credential', async () => {
    const received = await send({
      headers: { authorization: 'Bearer model-made', 'x-api-key': 'model-made' },
      credentialHeaders: [{ origin: server.origin, name: 'X-API-Key', value: 'sk-real' }],
    });

    expect(received.headers.authorization).toBeUndefined();
    expect(received.headers['x-api-key']).toBe('sk-real');
  });

  it('lets a bound Authorization credential replace the caller value', async () => {
    const received = await send({
      headers: { Authorization: 'Bearer model-made' },
      credentialHeaders: [{ origin: `${server.origin}/`, name: 'Authorization', value: 'Bearer real' }],
    });

    expect(received.headers.authorization).toBe('Bearer real');
  });

  it('refuses a header value carrying CR/LF before opening a socket', async () => {
    const sockets = server.sockets();

    const error = await guardedFetch(`${server.origin}/`, {
      headers: { 'x-a': 'v\r\nHost: evil' },
      policy: { allowLoopbackPorts: [server.port] },
    }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TypeError);
    expect(server.sockets()).toBe(sockets);
  });

  it.each(['GET', 'HEAD'])(
    'refuses a %s request with a body, as fetch does, before opening a socket',
    async (method) => {
      const sockets = server.sockets();

      const error = await guardedFetch(`${server.origin}/`, {
        method,
        body: 'x',
        policy: { allowLoopbackPorts: [server.port] },
      }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(TypeError);
      expect(server.sockets()).toBe(sockets);
    },
  );

  it.each([
    [{ origin: 'not a url', name: 'X-API-Key', value: 'k' }, 'is not a URL'],
    [{ origin: 'https://api.example.com/v1', name: 'X-API-Key', value: 'k' }, 'bare http(s) origin'],
    [{ origin: 'ftp://api.example.com', name: 'X-API-Key', value: 'k' }, 'bare http(s) origin'],
    [{ origin: 'https://user@api.example.com', name: 'X-API-Key', value: 'k' }, 'bare http(s) origin'],
    [{ origin: 'https://api.example.com', name: 'Cookie', value: 'k' }, 'cannot carry a credential'],
    [{ origin: 'https://api.example.com', name: 'Host', value: 'k' }, 'cannot carry a credential'],
  ])('rejects the malformed credential binding %o', async (credential, message) => {
    const sockets = server.sockets();

    const error = await guardedFetch(`${server.origin}/`, {
      credentialHeaders: [credential],
      policy: { allowLoopbackPorts: [server.port] },
    }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(EgressPolicyError);
    expect((error as Error).message).toContain(message);
    expect(server.sockets()).toBe(sockets);
  });

  it('rejects a credential value carrying CR/LF', async () => {
    const error = await guardedFetch(`${server.origin}/`, {
      credentialHeaders: [{ origin: server.origin, name: 'X-API-Key', value: 'k\r\nX-Evil: 1' }],
      policy: { allowLoopbackPorts: [server.port] },
    }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(TypeError);
  });
});
