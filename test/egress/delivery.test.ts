/**
 * `EgressError.delivery`: whether a failed request may have been received. Never left (guard refusal, no
 * listener) → `sent: false`; a connection was open (hang, reset, oversized answer) or the request was answered
 * with a redirect (whatever then fails) → `sent: true` with the request's method.
 */
import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressError, guardedFetch } from '../../shared/egress/index.ts';
import { startRawServer, startServer, type TestServer, useDialGuard } from './helpers.ts';

useDialGuard();
let hanging: TestServer;
let resetting: TestServer;
let redirecting: TestServer;
let closedPort: number;

beforeAll(async () => {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  closedPort = (probe.address() as net.AddressInfo).port;
  probe.close();
  await once(probe, 'close');
  hanging = await startRawServer(() => undefined);
  resetting = await startRawServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
  redirecting = await startServer((_req, res) => {
    res.writeHead(307, { location: `http://127.0.0.1:${closedPort}/elsewhere` });
    res.end();
  });
});
afterAll(async () => {
  await Promise.all([hanging, resetting, redirecting].map((server) => server.close()));
});

const policy = () => ({
  allowLoopbackPorts: [hanging.port, resetting.port, redirecting.port, closedPort],
  totalTimeoutMs: 300,
  headersTimeoutMs: 200,
});

async function failureOf(url: string, method = 'POST'): Promise<EgressError> {
  // The redirect test's next hop is another origin: named, as a POST is never redirected off its origin.
  const init = { method, body: 'x=1', policy: policy(), unsafeRedirectHosts: ['127.0.0.1'] };
  const error = await guardedFetch(url, init).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(EgressError);
  return error as EgressError;
}

describe('EgressError.delivery', () => {
  it('is sent:false for a refused destination and for a port where nothing listens', async () => {
    expect((await failureOf('http://10.1.2.3/x')).delivery).toEqual({ sent: false });
    const refused = await failureOf(`http://127.0.0.1:${closedPort}/x`);
    expect(refused).toMatchObject({ reason: 'network', delivery: { sent: false } });
  });

  it('is sent:true with the method once a connection was open (a hang, a reset)', async () => {
    expect(await failureOf(`${hanging.origin}/x`)).toMatchObject({
      reason: expect.stringMatching(/timeout/),
      delivery: { sent: true, method: 'POST' },
    });
    expect(await failureOf(`${resetting.origin}/x`, 'PUT')).toMatchObject({
      reason: 'network',
      delivery: { sent: true, method: 'PUT' },
    });
  });

  it('counts a redirect answer as receipt: a next hop that never connects is sent:true with the first method', async () => {
    const error = await failureOf(`${redirecting.origin}/x`);
    expect(redirecting.requests).toHaveLength(1);
    expect(error).toMatchObject({ reason: 'network', delivery: { sent: true, method: 'POST' } });
  });
});
