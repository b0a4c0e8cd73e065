import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { allowedHosts, hostGuard, normalizeHost } from '../../shared/local/host-guard.ts';

describe('Function: normalizeHost', () => {
  it.each([
    ['127.0.0.1:8787', '127.0.0.1:8787'],
    ['LocalHost:8787', 'localhost:8787'],
    ['[::1]:8787', '[::1]:8787'],
    ['example.test:80', 'example.test'],
    ['  wf.lan:8787 ', 'wf.lan:8787'],
    ['evil.example@127.0.0.1', undefined],
    ['127.0.0.1:8787/x', undefined],
    ['', undefined],
  ])('normalizes %j to %j', (header, expected) => {
    expect(normalizeHost(header)).toBe(expected);
  });
});

describe('Function: allowedHosts', () => {
  it('holds the loopback names with the port, and configured names', () => {
    // Act
    const hosts = allowedHosts(8787, ['wf.lan']);

    // Assess
    expect([...hosts].sort()).toEqual(
      ['127.0.0.1:8787', '[::1]:8787', 'localhost:8787', 'wf.lan:8787'].sort(),
    );
  });

  it('refuses a configured name that carries a port or is not a host name', () => {
    expect(() => allowedHosts(8787, ['wf.lan:9000'])).toThrow(/allowed host name 'wf.lan:9000' is invalid/);
    expect(() => allowedHosts(8787, ['*.lan'])).toThrow(/invalid/);
  });
});

describe('Middleware: hostGuard', () => {
  const app = new Hono();
  let reached = 0;
  app.use('*', hostGuard(allowedHosts(8787)));
  app.all('*', (c) => {
    reached += 1;
    return c.text('ok');
  });

  it.each(['127.0.0.1:8787', 'localhost:8787', '[::1]:8787'])('answers Host %s', async (host) => {
    const response = await app.request('/local/inbox', { headers: { host } });
    expect(response.status).toBe(200);
  });

  it.each(['rebind.evil.example:8787', '127.0.0.1:8788', '127.0.0.1', 'localhost.evil.example:8787'])(
    'refuses Host %s with 421 before any route runs (DNS rebinding)',
    async (host) => {
      // Prepare
      const before = reached;

      // Act
      const response = await app.request('/approvals/apr_x', { method: 'POST', headers: { host } });

      // Assess
      expect(response.status).toBe(421);
      expect(reached).toBe(before);
    },
  );
});
