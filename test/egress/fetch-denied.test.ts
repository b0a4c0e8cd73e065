import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressDeniedError, type EgressPolicy, guardedFetch } from '../../shared/egress/index.ts';
import { DENIED_ADDRESSES, urlHost } from './cases.ts';
import { scriptedResolver, startServer, type TestServer, useDialGuard } from './helpers.ts';

describe('guardedFetch refusals open no socket', () => {
  const guard = useDialGuard();
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it.each(DENIED_ADDRESSES)(
    'refuses a name resolving to $label ($address): $reason',
    async ({ address, reason }) => {
      // Prepare
      const resolve = scriptedResolver({ 'evil.test': [address] });

      // Act
      const error = await guardedFetch('https://evil.test/', { policy: { resolve } }).catch(
        (e: unknown) => e,
      );

      // Assess
      expect(error).toBeInstanceOf(EgressDeniedError);
      expect(error).toMatchObject({ reason, host: 'evil.test' });
      expect(guard.dials).toEqual([]);
    },
  );

  it.each(DENIED_ADDRESSES.filter((c) => !c.address.includes('%')))(
    'refuses the literal $label ($address): $reason',
    async ({ address, reason }) => {
      const error = await guardedFetch(`http://${urlHost(address)}/`).catch((e: unknown) => e);

      expect(error).toMatchObject({ name: 'EgressDeniedError', reason });
      expect(guard.dials).toEqual([]);
    },
  );

  it('refuses evil.test resolving to the loopback listener when no loopback port is allowed', async () => {
    const resolve = scriptedResolver({ 'evil.test': ['127.0.0.1'] });
    const policy: EgressPolicy = { resolve, allowedPorts: [80, 443, server.port] };

    const error = await guardedFetch(`http://evil.test:${server.port}/`, { policy }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'EgressDeniedError', reason: 'loopback', address: '127.0.0.1' });
    expect(server.sockets()).toBe(0);
    expect(guard.dials).toEqual([]);
  });

  it.each([
    ['decimal', (p: number) => `http://2130706433:${p}/`, 'loopback'],
    ['octal', (p: number) => `http://0177.0.0.1:${p}/`, 'loopback'],
    ['hex', (p: number) => `http://0x7f.1:${p}/`, 'loopback'],
    ['hex dword', (p: number) => `http://0x7f000001:${p}/`, 'loopback'],
    ['short form', (p: number) => `http://127.1:${p}/`, 'loopback'],
    ['trailing dot', (p: number) => `http://127.0.0.1.:${p}/`, 'loopback'],
    ['percent-encoded', (p: number) => `http://%31%32%37.0.0.1:${p}/`, 'loopback'],
    ['IPv4-mapped dotted', (p: number) => `http://[::ffff:127.0.0.1]:${p}/`, 'loopback'],
    ['IPv4-mapped hex', (p: number) => `http://[::ffff:7f00:1]:${p}/`, 'loopback'],
    ['IPv4-mapped long form', (p: number) => `http://[0:0:0:0:0:ffff:127.0.0.1]:${p}/`, 'loopback'],
    ['IPv4-compatible', (p: number) => `http://[::127.0.0.1]:${p}/`, 'loopback'],
    ['0.0.0.0 (reaches loopback on Linux)', (p: number) => `http://0.0.0.0:${p}/`, 'unspecified'],
    ['bare 0', (p: number) => `http://0:${p}/`, 'unspecified'],
    ['localhost', (p: number) => `http://localhost:${p}/`, 'blocked_host'],
    ['LOCALHOST with trailing dot', (p: number) => `http://LOCALHOST.:${p}/`, 'blocked_host'],
    ['a *.localhost name', (p: number) => `http://app.localhost:${p}/`, 'blocked_host'],
  ])('refuses the %s spelling of loopback without touching the listener', async (_label, url, reason) => {
    // Prepare: the port itself is allowed, so only the address rules can refuse.
    const policy: EgressPolicy = { allowedPorts: [80, 443, server.port], resolve: scriptedResolver({}) };

    // Act
    const error = await guardedFetch(url(server.port), { policy }).catch((e: unknown) => e);

    // Assess
    expect(error).toMatchObject({ name: 'EgressDeniedError', reason });
    expect(server.sockets()).toBe(0);
    expect(guard.dials).toEqual([]);
  });

  it('refuses mixed answers (loopback allowed + private) without touching the listener', async () => {
    const resolve = scriptedResolver({ 'mixed.test': ['127.0.0.1', '10.0.0.1'] });

    const error = await guardedFetch(`http://mixed.test:${server.port}/`, {
      policy: { resolve, allowLoopbackPorts: [server.port] },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({
      name: 'EgressDeniedError',
      reason: 'private_address',
      address: '10.0.0.1',
    });
    expect(server.sockets()).toBe(0);
  });

  it.each([
    'file:///etc/passwd',
    'ftp://example.com/',
    'gopher://example.com/',
    'data:,x',
    'javascript:alert(1)',
  ])('refuses the scheme of %s', async (url) => {
    await expect(guardedFetch(url)).rejects.toMatchObject({ name: 'EgressDeniedError', reason: 'scheme' });
    expect(guard.dials).toEqual([]);
  });

  it.each(['CONNECT', 'TRACE', 'TRACK'])('refuses the %s method', async (method) => {
    const error = await guardedFetch(`${server.origin}/`, {
      method,
      policy: { allowLoopbackPorts: [server.port] },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'EgressDeniedError', reason: 'method' });
    expect(server.sockets()).toBe(0);
  });

  it('refuses a host outside allowedHosts before resolving it', async () => {
    const resolve = scriptedResolver({ 'other.test': ['127.0.0.1'] });

    const error = await guardedFetch(`http://other.test:${server.port}/`, {
      policy: { resolve, allowLoopbackPorts: [server.port], allowedHosts: ['api.test'] },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({
      name: 'EgressDeniedError',
      reason: 'host_not_allowed',
      host: 'other.test',
    });
    expect(resolve.calls).toEqual([]);
    expect(server.sockets()).toBe(0);
  });

  it('carries the resolver failure as the cause of dns_failure', async () => {
    const error = await guardedFetch('https://missing.test/', {
      policy: { resolve: scriptedResolver({}) },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'EgressDeniedError', reason: 'dns_failure' });
    expect((error as Error).cause).toMatchObject({ code: 'ENOTFOUND' });
    expect(guard.dials).toEqual([]);
  });
});
