import type { Socket } from 'node:net';
import { buildConnector } from 'undici';
import { describe, expect, it } from 'vitest';
import { createDialer, createGuardedConnector } from '../../shared/egress/connector.ts';
import { EgressDeniedError, type EgressPolicy } from '../../shared/egress/index.ts';
import { resolvePolicy } from '../../shared/egress/policy.ts';
import { scriptedResolver } from './helpers.ts';

type Dialled = buildConnector.Options;

/** A dialler that records what it is asked to dial and answers from a script, never opening a socket. */
function fakeDialer(failures: Record<string, string> = {}) {
  const dialled: Dialled[] = [];
  const socket = { fake: true } as unknown as Socket;
  const dial: buildConnector.connector = (options, callback) => {
    dialled.push(options);
    const code = failures[options.hostname];
    if (code !== undefined) callback(Object.assign(new Error(code), { code }), null);
    else callback(null, socket);
  };
  return { dial, dialled, socket };
}

function connect(policy: EgressPolicy, options: Dialled, dial: buildConnector.connector) {
  const connector = createGuardedConnector(resolvePolicy(policy), dial);
  return new Promise<{ error: Error | null; socket: unknown }>((resolve) => {
    connector(options, (error, socket) => resolve({ error, socket }));
  });
}

describe('createGuardedConnector', () => {
  it.each([
    ['10.0.0.1', 'private_address'],
    ['169.254.169.254', 'metadata'],
    ['::ffff:7f00:1', 'loopback'],
    ['127.0.0.1', 'loopback'],
    ['fd00:ec2::254', 'metadata'],
  ])(
    'refuses the literal host %s (undici skips lookup hooks for literals) without dialling',
    async (hostname, reason) => {
      // Prepare
      const fake = fakeDialer();

      // Act
      const { error } = await connect({}, { hostname, protocol: 'http:', port: '80' }, fake.dial);

      // Assess
      expect(error).toBeInstanceOf(EgressDeniedError);
      expect(error).toMatchObject({ reason });
      expect(fake.dialled).toEqual([]);
    },
  );

  it('dials the checked address of a name, keeping the name for SNI, after exactly one resolution', async () => {
    const fake = fakeDialer();
    const resolve = scriptedResolver({ 'api.example.com': ['93.184.216.34'] });

    const { error, socket } = await connect(
      { resolve },
      { hostname: 'api.example.com', host: 'api.example.com', protocol: 'https:', port: '' },
      fake.dial,
    );

    expect(error).toBeNull();
    expect(socket).toBe(fake.socket);
    expect(fake.dialled).toEqual([
      expect.objectContaining({
        hostname: '93.184.216.34',
        servername: 'api.example.com',
        protocol: 'https:',
      }),
    ]);
    expect(resolve.calls).toEqual(['api.example.com']);
  });

  it('sends no SNI name for an IP-literal https host', async () => {
    const fake = fakeDialer();

    await connect({}, { hostname: '93.184.216.34', protocol: 'https:', port: '443' }, fake.dial);

    expect(fake.dialled).toHaveLength(1);
    expect(fake.dialled[0]?.hostname).toBe('93.184.216.34');
    expect(fake.dialled[0]?.servername).toBeUndefined();
  });

  it('refuses mixed answers without dialling any of them', async () => {
    const fake = fakeDialer();
    const resolve = scriptedResolver({ 'mixed.test': ['93.184.216.34', '10.0.0.1'] });

    const { error } = await connect(
      { resolve },
      { hostname: 'mixed.test', protocol: 'https:', port: '' },
      fake.dial,
    );

    expect(error).toMatchObject({ name: 'EgressDeniedError', reason: 'private_address' });
    expect(fake.dialled).toEqual([]);
  });

  it('falls back to the next checked address of the same answer when one is unreachable', async () => {
    const fake = fakeDialer({ '2606:4700:4700::1111': 'ENETUNREACH', '93.184.216.34': 'ECONNREFUSED' });
    const resolve = scriptedResolver({
      'api.example.com': ['2606:4700:4700::1111', '93.184.216.34', '8.8.8.8'],
    });

    const { error } = await connect(
      { resolve },
      { hostname: 'api.example.com', protocol: 'https:', port: '' },
      fake.dial,
    );

    expect(error).toBeNull();
    expect(fake.dialled.map((o) => o.hostname)).toEqual(['2606:4700:4700::1111', '93.184.216.34', '8.8.8.8']);
    expect(resolve.calls).toHaveLength(1);
  });

  it('does not retry another address after a TLS identity failure', async () => {
    const fake = fakeDialer({ '93.184.216.34': 'ERR_TLS_CERT_ALTNAME_INVALID' });
    const resolve = scriptedResolver({ 'api.example.com': ['93.184.216.34', '8.8.8.8'] });

    const { error } = await connect(
      { resolve },
      { hostname: 'api.example.com', protocol: 'https:', port: '' },
      fake.dial,
    );

    expect(error).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(fake.dialled).toHaveLength(1);
  });

  it('checks the port of a resolved public address: loopback ports are for loopback only', async () => {
    const fake = fakeDialer();
    const resolve = scriptedResolver({ 'api.example.com': ['93.184.216.34'] });

    const { error } = await connect(
      { resolve, allowLoopbackPorts: [8123] },
      { hostname: 'api.example.com', protocol: 'http:', port: '8123' },
      fake.dial,
    );

    expect(error).toMatchObject({ name: 'EgressDeniedError', reason: 'port' });
    expect(fake.dialled).toEqual([]);
  });
});

describe('createDialer', () => {
  it('refuses to resolve a name itself, so only checked literals can ever be dialled', async () => {
    // Act: hand the raw dialler a name; its lookup must refuse rather than resolve and connect.
    const dial = createDialer(1_000, buildConnector);
    const error = await new Promise<Error | null>((resolve) => {
      dial({ hostname: 'localhost', protocol: 'http:', port: '9' }, (...result) => resolve(result[0]));
    });

    // Assess
    expect(error?.message).toMatch(/refusing a second DNS lookup of localhost/);
  });
});
