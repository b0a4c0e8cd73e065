import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EgressLimitError, guardedFetch } from '../../shared/egress/index.ts';
import { startServer, type TestServer, useDialGuard } from './helpers.ts';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** `body` gzipped `layers` times, with the Content-Encoding header that says so. */
function gzipLayers(body: Buffer, layers: number): { encoded: Buffer; header: string } {
  let encoded = body;
  for (let i = 0; i < layers; i++) encoded = gzipSync(encoded);
  return { encoded, header: Array(layers).fill('gzip').join(', ') };
}

/** Serves one encoded body. */
async function serve(encoded: Buffer, header: string): Promise<TestServer> {
  const server = await startServer((_req, res) => {
    res.writeHead(200, { 'content-encoding': header, 'content-length': encoded.length });
    res.end(encoded);
  });
  servers.push(server);
  return server;
}

describe('guardedFetch stacked Content-Encoding', () => {
  useDialGuard();

  it('decodes 5 stacked codings and refuses 6 as too_many_encodings, marked sent', async () => {
    const five = gzipLayers(Buffer.from('hello'), 5);
    const six = gzipLayers(Buffer.from('hello'), 6);
    const a = await serve(five.encoded, five.header);
    const b = await serve(six.encoded, six.header);

    const decoded = await (
      await guardedFetch(`${a.origin}/`, { policy: { allowLoopbackPorts: [a.port] } })
    ).text();
    const refused = await guardedFetch(`${b.origin}/`, {
      method: 'POST',
      body: 'x',
      policy: { allowLoopbackPorts: [b.port] },
    }).catch((error: unknown) => error);

    expect(decoded).toBe('hello');
    expect(refused).toBeInstanceOf(EgressLimitError);
    expect(refused).toMatchObject({ reason: 'too_many_encodings', delivery: { sent: true, method: 'POST' } });
  });

  it('caps an inner layer that expands past maxResponseBytes although the last one outputs nothing', async () => {
    // 2.1 MB of empty stored deflate blocks (00 | LEN 0000 | NLEN ffff) then a final empty one: decodes to
    // nothing; gzipped it is a few KiB, gunzipped it is 2.1 MB that the deflate layer chews on.
    const empty = Buffer.concat([
      Buffer.alloc(5 * 420_000, Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff])),
      Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]),
    ]);
    const server = await serve(gzipSync(empty), 'deflate, gzip');

    const error = await guardedFetch(`${server.origin}/`, { policy: { allowLoopbackPorts: [server.port] } })
      .then((response) => response.arrayBuffer())
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(EgressLimitError);
    expect(error).toMatchObject({ reason: 'response_too_large', delivery: { sent: true } });
  });

  it('errors a body read after the deadline fired with timeout, though every byte had arrived', async () => {
    // Ordering, not timing: the deadline's timer is faked and fired by hand between the answer and the read.
    const { encoded, header } = gzipLayers(Buffer.from('hello'), 3);
    const server = await serve(encoded, header);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let error: unknown;
    try {
      const response = await guardedFetch(`${server.origin}/`, {
        policy: { allowLoopbackPorts: [server.port], totalTimeoutMs: 1_000 },
      });
      vi.advanceTimersByTime(1_000);
      error = await response.text().catch((caught: unknown) => caught);
    } finally {
      vi.useRealTimers();
    }

    expect(error).toBeInstanceOf(EgressLimitError);
    expect(error).toMatchObject({ reason: 'timeout', delivery: { sent: true, method: 'GET' } });
  });
});
