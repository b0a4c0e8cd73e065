/**
 * Bodies on node:http: request bodies are extracted as fetch extracts them (Content-Type and length), and
 * response bodies are decoded per Content-Encoding as fetch decodes them.
 */
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch } from '../../shared/egress/index.ts';
import { startServer, type TestServer, useDialGuard } from './helpers.ts';

const TEXT = 'hello, decoded world';

describe('guardedFetch bodies', () => {
  useDialGuard();
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((req, res) => {
      const encoded: Record<string, [string, Buffer]> = {
        '/raw-deflate': ['deflate', deflateRawSync(TEXT)],
        '/deflate': ['deflate', deflateSync(TEXT)],
        '/gzip-twice': ['gzip, gzip', gzipSync(gzipSync(TEXT))],
        '/unknown': ['x-custom', Buffer.from(TEXT)],
      };
      const entry = encoded[req.url ?? ''];
      if (entry) res.writeHead(200, { 'content-encoding': entry[0] });
      res.end(entry ? entry[1] : 'ok');
    });
  });
  afterAll(async () => {
    await server.close();
  });
  const get = async (path: string) =>
    (await guardedFetch(`${server.origin}${path}`, { policy: { allowLoopbackPorts: [server.port] } })).text();

  it.each(['/raw-deflate', '/deflate', '/gzip-twice'])('decodes %s', async (path) => {
    expect(await get(path)).toBe(TEXT);
  });

  it('hands over a body in an unknown coding as received', async () => {
    expect(await get('/unknown')).toBe(TEXT);
  });

  it.each([
    ['a string', 'a=1', 'text/plain;charset=UTF-8'],
    [
      'URLSearchParams',
      new URLSearchParams({ a: '1', b: 'two' }),
      'application/x-www-form-urlencoded;charset=UTF-8',
    ],
    ['a Uint8Array', new TextEncoder().encode('bytes'), undefined],
  ])('sends %s with its length and the Content-Type fetch gives it', async (_label, body, type) => {
    const before = server.requests.length;

    await guardedFetch(`${server.origin}/echo`, {
      method: 'POST',
      body,
      policy: { allowLoopbackPorts: [server.port] },
    });

    const received = server.requests[before]!;
    expect(received.headers['content-type']).toBe(type);
    expect(received.headers['content-length']).toBe(String(Buffer.byteLength(received.body)));
    expect(received.body).toBe(body instanceof Uint8Array ? 'bytes' : String(body));
  });

  it('keeps the caller Content-Type over the derived one', async () => {
    const before = server.requests.length;

    await guardedFetch(`${server.origin}/echo`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
      policy: { allowLoopbackPorts: [server.port] },
    });

    expect(server.requests[before]?.headers['content-type']).toBe('application/json');
  });

  it('streams a ReadableStream body chunked', async () => {
    const before = server.requests.length;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('part one, '));
        controller.enqueue(new TextEncoder().encode('part two'));
        controller.close();
      },
    });

    await guardedFetch(`${server.origin}/echo`, {
      method: 'PUT',
      body: stream,
      duplex: 'half',
      policy: { allowLoopbackPorts: [server.port] },
    } as RequestInit & { duplex: 'half' });

    const received = server.requests[before]!;
    expect(received.body).toBe('part one, part two');
    expect(received.headers['transfer-encoding']).toBe('chunked');
  });
});
