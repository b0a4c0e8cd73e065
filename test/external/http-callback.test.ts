import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CallbackRejectedError, type CallbackRequest } from '../../shared/external/index.ts';
import { CALLBACK_KEY, type FixtureHarness, fixtureHarness } from '../support/fixture-harness.ts';

let receiver: Server;
let received: CallbackRequest[];
let callbackUrl: string;
let harness: FixtureHarness;

beforeEach(async () => {
  received = [];
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers[name] = value;
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callbacks/http-runtime`;
  harness = await fixtureHarness({ settings: { callback: { url: callbackUrl, secret: 'engine-callback' } } });
});

afterEach(async () => {
  await harness.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const nowSeconds = () => Math.floor(harness.context.clock.nowMs() / 1000);

async function pushed(key: string, secret = CALLBACK_KEY, at = nowSeconds()): Promise<CallbackRequest> {
  await harness.engine.pushStatus(key, secret, at);
  const request = received.at(-1);
  if (request === undefined) throw new Error('nothing was pushed');
  return request;
}

describe('Adapter: http-runtime', () => {
  describe('Method: verifyCallback', () => {
    it('tells the engine where to push, and accepts a push signed with the owner key', async () => {
      // Prepare
      harness.engine.script('k1', { running: 1 });
      const { execution } = await harness.adapter.start('k1', { n: 1 });

      // Act
      const event = await harness.adapter.verifyCallback?.(await pushed('k1'));

      // Assess
      expect(JSON.parse(harness.engine.requests[0]?.body ?? '').callback_url).toBe(callbackUrl);
      expect(event).toEqual({
        key: 'k1',
        incarnation: execution.incarnation,
        observation: { observedAtMs: harness.context.clock.nowMs(), state: 'running', progress: 'step 1' },
      });
    });

    it.each([
      ['a changed body', (r: CallbackRequest) => ({ ...r, body: r.body.replace('running', 'failed') })],
      ['no signature', (r: CallbackRequest) => ({ ...r, headers: { ...r.headers, 'x-signature-256': '' } })],
      [
        'no timestamp',
        (r: CallbackRequest) => ({ body: r.body, headers: { 'x-signature-256': 'sha256=00' } }),
      ],
    ])('rejects a push with %s (fail closed)', async (_label, tamper) => {
      harness.engine.script('k1', { running: 1 });
      await harness.adapter.start('k1', { n: 1 });
      const request = tamper(await pushed('k1'));
      await expect(harness.adapter.verifyCallback?.(request)).rejects.toMatchObject({
        name: 'CallbackRejectedError',
        reason: 'signature',
      });
    });

    it('rejects a push signed with another key', async () => {
      await harness.adapter.start('k1', { n: 1 });
      const request = await pushed('k1', 'wfsecret-SomeoneElsesKey-000000');
      await expect(harness.adapter.verifyCallback?.(request)).rejects.toBeInstanceOf(CallbackRejectedError);
    });

    it('rejects a replayed push older than the tolerance', async () => {
      await harness.adapter.start('k1', { n: 1 });
      const request = await pushed('k1', CALLBACK_KEY, nowSeconds() - 301);
      await expect(harness.adapter.verifyCallback?.(request)).rejects.toBeInstanceOf(CallbackRejectedError);
    });

    it('rejects every push when no callback is configured (the executor polls)', async () => {
      const plain = await fixtureHarness();
      try {
        await expect(plain.adapter.verifyCallback?.({ body: '{}', headers: {} })).rejects.toMatchObject({
          reason: 'not_configured',
        });
      } finally {
        await plain.close();
      }
    });
  });
});
