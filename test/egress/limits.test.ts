import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createEgress, EgressLimitError, guardedFetch } from '../../shared/egress/index.ts';
import { eventually, startRawServer, startServer, type TestServer, useDialGuard } from './helpers.ts';

const MiB = 1024 * 1024;
const servers: TestServer[] = [];
async function track(started: Promise<TestServer>): Promise<TestServer> {
  const s = await started;
  servers.push(s);
  return s;
}

/** Reads a body to its end or its error, counting the decoded bytes that reached the caller. */
async function drain(response: Response): Promise<{ bytes: number; error: unknown }> {
  let bytes = 0;
  const reader = response.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes, error: undefined };
      bytes += value.byteLength;
    }
  } catch (error) {
    return { bytes, error };
  }
}

describe('guardedFetch response limits', () => {
  useDialGuard();
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ])('cuts a %s bomb at maxResponseBytes of decoded body', async (encoding, compress) => {
    // Prepare: 16 MiB of zeros, compressed to a few KiB.
    const bomb = compress(Buffer.alloc(16 * MiB));
    const server = await track(
      startServer((_req, res) => {
        res.writeHead(200, { 'content-encoding': encoding, 'content-length': bomb.length });
        res.end(bomb);
      }),
    );

    // Act
    const response = await guardedFetch(`${server.origin}/`, {
      policy: { allowLoopbackPorts: [server.port] },
    });
    const { bytes, error } = await drain(response);

    // Assess
    expect(bomb.length).toBeLessThan(MiB);
    expect(error).toBeInstanceOf(EgressLimitError);
    expect(error).toMatchObject({ reason: 'response_too_large' });
    expect(bytes).toBeLessThanOrEqual(MiB);
    await eventually(() => server.open() === 0);
  });

  it('delivers a body of exactly maxResponseBytes and refuses one byte more', async () => {
    const server = await track(
      startServer((req, res) => res.end(Buffer.alloc(Number(req.url?.slice(1)), 'a'))),
    );
    const policy = { allowLoopbackPorts: [server.port], maxResponseBytes: 1000 };

    const exact = await (await guardedFetch(`${server.origin}/1000`, { policy })).text();
    const over = await guardedFetch(`${server.origin}/1001`, { policy })
      .then((r) => r.text())
      .catch((e: unknown) => e);

    expect(exact).toHaveLength(1000);
    expect(over).toMatchObject({ name: 'EgressLimitError', reason: 'response_too_large' });
  });

  it('refuses an announced identity Content-Length above the cap before reading the body', async () => {
    const server = await track(
      startServer((_req, res) => {
        res.writeHead(200, { 'content-length': 2 * MiB });
        res.write('x');
      }),
    );

    const error = await guardedFetch(`${server.origin}/`, {
      policy: { allowLoopbackPorts: [server.port] },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'EgressLimitError', reason: 'response_too_large' });
    await eventually(() => server.open() === 0);
  });

  it.each([50, 1_000])('cuts a one-byte-every-%i-ms drip by the overall deadline', async (interval) => {
    // Prepare: headers at once, then one byte per interval, forever; at 50 ms an idle timer never fires.
    const server = await track(
      startServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('x');
        const timer = setInterval(() => res.write('x'), interval);
        res.on('close', () => clearInterval(timer));
      }),
    );
    const started = performance.now();

    // Act
    const response = await guardedFetch(`${server.origin}/`, {
      policy: { allowLoopbackPorts: [server.port], totalTimeoutMs: 300 },
    });
    const { bytes, error } = await drain(response);

    // Assess
    const elapsed = performance.now() - started;
    expect(error).toMatchObject({ name: 'EgressLimitError', reason: 'timeout' });
    expect(bytes).toBeGreaterThan(0);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2_000);
    await eventually(() => server.open() === 0);
  });

  it('closes the socket at the deadline even when the caller never reads the body', async () => {
    const server = await track(
      startRawServer((socket) => {
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n1\r\nx\r\n',
        );
      }),
    );

    const response = await guardedFetch(`${server.origin}/`, {
      policy: { allowLoopbackPorts: [server.port], totalTimeoutMs: 200 },
    });

    expect(response.status).toBe(200);
    expect(server.open()).toBe(1);
    await eventually(() => server.open() === 0, 1_500);
  });

  it('refuses a server that sends no headers within headersTimeoutMs', async () => {
    const server = await track(startRawServer(() => {}));

    const error = await guardedFetch(`${server.origin}/`, {
      policy: { allowLoopbackPorts: [server.port], headersTimeoutMs: 200 },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'EgressLimitError', reason: 'headers_timeout' });
    expect(server.sockets()).toBe(1);
    await eventually(() => server.open() === 0);
  });

  it('applies the overall deadline to slow headers too', async () => {
    const server = await track(startRawServer(() => {}));

    const error = await guardedFetch(`${server.origin}/`, {
      policy: { allowLoopbackPorts: [server.port], totalTimeoutMs: 200, headersTimeoutMs: 5_000 },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'EgressLimitError', reason: 'timeout' });
  });

  it.each([
    [16 * 1024, 20 * 1024, 'headers_too_large'],
    [4 * 1024, 5 * 1024, 'headers_too_large'],
    [64 * 1024, 20 * 1024, undefined],
  ])('with maxHeaderBytes %i, a %i-byte header → %s', async (maxHeaderBytes, size, reason) => {
    const server = await track(
      startServer((_req, res) => {
        res.setHeader('x-big', 'a'.repeat(size));
        res.end('ok');
      }),
    );

    const outcome = await guardedFetch(`${server.origin}/`, {
      policy: { allowLoopbackPorts: [server.port], maxHeaderBytes },
    }).then(
      async (r) => {
        await r.text();
        return r.status;
      },
      (e: unknown) => e,
    );

    if (reason === undefined) expect(outcome).toBe(200);
    else expect(outcome).toMatchObject({ name: 'EgressLimitError', reason });
    await eventually(() => server.open() === 0);
  });

  it('passes a caller abort through as the caller reason', async () => {
    const server = await track(startRawServer(() => {}));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);

    const error = await guardedFetch(`${server.origin}/`, {
      signal: controller.signal,
      policy: { allowLoopbackPorts: [server.port] },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({ message: 'caller gave up' });
  });

  it('reports an unreachable allowed destination as a network error', async () => {
    const server = await track(startServer());
    const port = server.port;
    await server.close();
    servers.length = 0;

    const error = await guardedFetch(`http://127.0.0.1:${port}/`, {
      policy: { allowLoopbackPorts: [port] },
    }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'EgressNetworkError', reason: 'network' });
    expect((error as Error).cause).toBeDefined();
  });

  it('makes createEgress fail a bomb with response_too_large', async () => {
    const bomb = gzipSync(Buffer.alloc(16 * MiB));
    const server = await track(
      startServer((_req, res) => {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        res.end(bomb);
      }),
    );
    const egress = createEgress({ allowLoopbackPorts: [server.port] });

    const error = await egress.request({ method: 'GET', url: `${server.origin}/` }).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'EgressLimitError', reason: 'response_too_large' });
  });
});
