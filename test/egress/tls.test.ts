/**
 * https through the guard, on real TLS sockets on loopback. The name is resolved once and the checked address
 * is dialled, while SNI and the certificate check use the NAME: pinning the address never weakens TLS.
 * Fixtures: a test CA and a certificate for `api.test` only (test/egress/fixtures, valid until 2126, test use
 * only; the CA's key was discarded after signing).
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch } from '../../shared/egress/index.ts';
import { scriptedResolver, useDialGuard } from './helpers.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const CA = fixture('ca.pem');

describe('guardedFetch over TLS', () => {
  const guard = useDialGuard();
  const servernames: (string | false)[] = [];
  let server: tls.Server;
  let port: number;
  const defaults = tls.getCACertificates('default');

  beforeAll(async () => {
    server = tls.createServer({ key: fixture('api-test.key'), cert: fixture('api-test.pem') }, (socket) => {
      servernames.push((socket as tls.TLSSocket & { servername: string | false }).servername);
      socket.on('error', () => {});
      socket.once('data', () =>
        socket.end('HTTP/1.1 200 OK\r\ncontent-length: 6\r\nconnection: close\r\n\r\nsecure'),
      );
    });
    server.on('tlsClientError', () => {});
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    tls.setDefaultCACertificates(defaults);
    server.close();
    await once(server, 'close');
  });
  const trustTestCa = () => tls.setDefaultCACertificates([...defaults, CA]);

  it('dials the checked address, sends the name as SNI, and verifies the certificate on the name', async () => {
    // Prepare
    trustTestCa();
    const resolve = scriptedResolver({ 'api.test': ['127.0.0.1'] });

    // Act
    const response = await guardedFetch(`https://api.test:${port}/`, {
      policy: { resolve, allowLoopbackPorts: [port] },
    });

    // Assess
    expect(await response.text()).toBe('secure');
    expect(guard.dials).toEqual(['127.0.0.1']);
    expect(servernames.at(-1)).toBe('api.test');
    expect(resolve.calls).toEqual(['api.test']);
  });

  it('refuses a certificate that is not for the requested name, although the address is the same', async () => {
    trustTestCa();
    const resolve = scriptedResolver({ 'other.test': ['127.0.0.1'] });

    const error = await guardedFetch(`https://other.test:${port}/`, {
      policy: { resolve, allowLoopbackPorts: [port] },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'EgressNetworkError', reason: 'network' });
    expect((error as Error).cause).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('refuses a certificate from an authority the process does not trust', async () => {
    tls.setDefaultCACertificates(defaults);
    const resolve = scriptedResolver({ 'api.test': ['127.0.0.1'] });

    const error = await guardedFetch(`https://api.test:${port}/`, {
      policy: { resolve, allowLoopbackPorts: [port] },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'EgressNetworkError', reason: 'network' });
    expect((error as Error).cause).toMatchObject({ code: expect.stringMatching(/CERT|SIGNATURE|ISSUER/) });
  });

  it('pins the TLS connection to the first answer of a rebinding resolver', async () => {
    trustTestCa();
    const resolve = scriptedResolver({ 'api.test': [['127.0.0.1'], ['10.0.0.1']] });

    const response = await guardedFetch(`https://api.test:${port}/`, {
      policy: { resolve, allowLoopbackPorts: [port] },
    });

    expect(await response.text()).toBe('secure');
    expect(resolve.calls).toEqual(['api.test']);
    expect(guard.dials).toEqual(['127.0.0.1']);
  });
});
