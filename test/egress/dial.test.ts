import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { type Dialer, type DialTarget, dialChecked, dialSocket } from '../../shared/egress/dial.ts';
import { EgressDeniedError, type EgressPolicy } from '../../shared/egress/index.ts';
import { resolvePolicy } from '../../shared/egress/policy.ts';
import { scriptedResolver } from './helpers.ts';

/** A dialler that records what it is asked to dial and answers from a script, never opening a socket. */
function fakeDialer(failures: Record<string, string> = {}) {
  const dialled: DialTarget[] = [];
  const socket = { fake: true } as unknown as Socket;
  const dial: Dialer = async (target) => {
    dialled.push(target);
    const code = failures[target.address];
    if (code !== undefined) throw Object.assign(new Error(code), { code });
    return socket;
  };
  return { dial, dialled, socket };
}

/** Dials `url` through the guard with `dial`; the outcome is the socket or the error. */
async function connect(policy: EgressPolicy, url: string, dial: Dialer) {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const port = Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80);
  return dialChecked(parsed, host, port, resolvePolicy(policy), new AbortController().signal, dial).then(
    (socket) => ({ error: null, socket }),
    (error: Error) => ({ error, socket: undefined }),
  );
}

describe('dialChecked', () => {
  it.each([
    ['10.0.0.1', 'private_address'],
    ['169.254.169.254', 'metadata'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['127.0.0.1', 'loopback'],
    ['[fd00:ec2::254]', 'metadata'],
  ])('refuses the literal host %s at dial time without dialling', async (hostname, reason) => {
    // Prepare
    const fake = fakeDialer();

    // Act
    const { error } = await connect({}, `http://${hostname}/`, fake.dial);

    // Assess
    expect(error).toBeInstanceOf(EgressDeniedError);
    expect(error).toMatchObject({ reason });
    expect(fake.dialled).toEqual([]);
  });

  it('dials the checked address of a name, keeping the name for SNI, after exactly one resolution', async () => {
    const fake = fakeDialer();
    const resolve = scriptedResolver({ 'api.example.com': ['93.184.216.34'] });

    const { error, socket } = await connect({ resolve }, 'https://api.example.com/', fake.dial);

    expect(error).toBeNull();
    expect(socket).toBe(fake.socket);
    expect(fake.dialled).toEqual([
      expect.objectContaining({
        address: '93.184.216.34',
        port: 443,
        tls: true,
        servername: 'api.example.com',
      }),
    ]);
    expect(resolve.calls).toEqual(['api.example.com']);
  });

  it('sends no SNI name for an IP-literal https host', async () => {
    const fake = fakeDialer();

    await connect({}, 'https://93.184.216.34/', fake.dial);

    expect(fake.dialled).toHaveLength(1);
    expect(fake.dialled[0]?.address).toBe('93.184.216.34');
    expect(fake.dialled[0]?.servername).toBeUndefined();
  });

  it('refuses mixed answers without dialling any of them', async () => {
    const fake = fakeDialer();
    const resolve = scriptedResolver({ 'mixed.test': ['93.184.216.34', '10.0.0.1'] });

    const { error } = await connect({ resolve }, 'https://mixed.test/', fake.dial);

    expect(error).toMatchObject({ name: 'EgressDeniedError', reason: 'private_address' });
    expect(fake.dialled).toEqual([]);
  });

  it('falls back to the next checked address of the same answer when one is unreachable', async () => {
    const fake = fakeDialer({ '2606:4700:4700::1111': 'ENETUNREACH', '93.184.216.34': 'ECONNREFUSED' });
    const resolve = scriptedResolver({
      'api.example.com': ['2606:4700:4700::1111', '93.184.216.34', '8.8.8.8'],
    });

    const { error } = await connect({ resolve }, 'https://api.example.com/', fake.dial);

    expect(error).toBeNull();
    expect(fake.dialled.map((t) => t.address)).toEqual(['2606:4700:4700::1111', '93.184.216.34', '8.8.8.8']);
    expect(resolve.calls).toHaveLength(1);
  });

  it('does not retry another address after a TLS identity failure', async () => {
    const fake = fakeDialer({ '93.184.216.34': 'ERR_TLS_CERT_ALTNAME_INVALID' });
    const resolve = scriptedResolver({ 'api.example.com': ['93.184.216.34', '8.8.8.8'] });

    const { error } = await connect({ resolve }, 'https://api.example.com/', fake.dial);

    expect(error).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(fake.dialled).toHaveLength(1);
  });

  it('checks the port of a resolved public address: loopback ports are for loopback only', async () => {
    const fake = fakeDialer();
    const resolve = scriptedResolver({ 'api.example.com': ['93.184.216.34'] });

    const { error } = await connect(
      { resolve, allowLoopbackPorts: [8123] },
      'http://api.example.com:8123/',
      fake.dial,
    );

    expect(error).toMatchObject({ name: 'EgressDeniedError', reason: 'port' });
    expect(fake.dialled).toEqual([]);
  });
});

describe('dialSocket', () => {
  it('refuses to resolve a name itself, so only checked literals can ever be dialled', async () => {
    // Act: hand the raw dialler a name; its lookup must refuse rather than resolve and connect.
    const error = await dialSocket(
      { address: 'localhost', port: 9, tls: false, servername: undefined, timeoutMs: 1_000 },
      new AbortController().signal,
    ).catch((e: unknown) => e);

    // Assess
    expect((error as Error).message).toMatch(/refusing a second DNS lookup of localhost/);
  });
});
