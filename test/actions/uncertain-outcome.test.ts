/**
 * "The request never left" versus "it may have been received": real loopback receivers that read the
 * request and then hang past the deadline, reset the socket, or answer more than the size cap. A
 * non-idempotent request that was sent is "outcome unknown", never "not sent"/"not completed"; one that
 * never left (guard refusal, connection refused) is a plain failure.
 */
import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequestAction } from '../../shared/actions/http/http-request.ts';
import { startRawServer, startServer, type TestServer, useDialGuard } from '../egress/helpers.ts';
import { actionContext, definitionWith, runParsed, secretsFile } from './support.ts';

const action = httpRequestAction(definitionWith({}));
useDialGuard();

/** Bytes of one HTTP request read from a raw socket, resolved once its body (content-length) is in. */
function onRequest(socket: net.Socket, then: (request: string) => void): void {
  let data = '';
  socket.on('data', (chunk: Buffer) => {
    data += chunk.toString('utf8');
    const end = data.indexOf('\r\n\r\n');
    if (end < 0) return;
    const length = Number(/content-length: (\d+)/i.exec(data.slice(0, end))?.[1] ?? 0);
    if (data.length >= end + 4 + length) then(data);
  });
}

let hanging: TestServer;
let resetting: TestServer;
let oversized: TestServer;
let streaming: TestServer;
const seen: Record<string, string[]> = { hanging: [], resetting: [] };
let closedPort: number;

beforeAll(async () => {
  // Reads the whole request, then never answers (past the guard's deadline).
  hanging = await startRawServer((socket) => onRequest(socket, (request) => seen.hanging?.push(request)));
  // Reads the whole request, then resets the connection (RST).
  resetting = await startRawServer((socket) =>
    onRequest(socket, (request) => {
      seen.resetting?.push(request);
      socket.resetAndDestroy();
    }),
  );
  // Answers with a declared length over the cap, and with a chunked body that grows past it.
  oversized = await startServer((_req, res) => {
    res.writeHead(201, { 'content-type': 'text/plain', 'content-length': String(4096) });
    res.end('x'.repeat(4096));
  });
  streaming = await startServer((_req, res) => {
    res.writeHead(201, { 'content-type': 'text/plain' });
    res.write('y'.repeat(2048));
    res.end('y'.repeat(2048));
  });
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  closedPort = (probe.address() as net.AddressInfo).port;
  probe.close();
  await once(probe, 'close');
});
afterAll(async () => {
  await Promise.all([hanging, resetting, oversized, streaming].map((server) => server.close()));
});

const context = () =>
  actionContext({
    ports: [hanging.port, resetting.port, oversized.port, streaming.port, closedPort],
    secrets: secretsFile({}),
    policy: { totalTimeoutMs: 400, headersTimeoutMs: 300, maxResponseBytes: 1024 },
  });

const post = (origin: string) => ({ method: 'POST', url: `${origin}/orders`, body: { item: 'widget' } });

describe('http_request outcome classes', () => {
  it('a POST read by a receiver that then hangs past the deadline is outcome unknown', async () => {
    const outcome = await runParsed(action, post(hanging.origin), context());
    expect(seen.hanging?.some((request) => request.includes('{"item":"widget"}'))).toBe(true);
    expect(outcome).toMatchObject({ isError: true, outcomeUnknown: true });
    expect(outcome.content).toMatch(/^Outcome unknown: the POST request was sent/);
    expect(outcome.content).toMatch(/not repeated/i);
    expect(outcome.content).not.toMatch(/not (sent|completed|executed)/);
  });

  it('a POST whose connection is reset after the receiver read it is outcome unknown', async () => {
    const outcome = await runParsed(action, post(resetting.origin), context());
    expect(seen.resetting?.some((request) => request.includes('{"item":"widget"}'))).toBe(true);
    expect(outcome).toMatchObject({ isError: true, outcomeUnknown: true });
    expect(outcome.content).toMatch(/^Outcome unknown: the POST request was sent.*network/);
  });

  it.each([
    ['a declared length', () => oversized],
    ['a streamed body', () => streaming],
  ])('a POST answered with more than the size cap (%s) is outcome unknown', async (_name, server) => {
    const outcome = await runParsed(action, post(server().origin), context());
    expect(server().requests.at(-1)?.body).toBe('{"item":"widget"}');
    expect(outcome).toMatchObject({ isError: true, outcomeUnknown: true });
    expect(outcome.content).toContain('response_too_large');
  });

  it('a GET that timed out after it was sent is a plain failure that says it was sent', async () => {
    const outcome = await runParsed(action, { url: `${hanging.origin}/read` }, context());
    expect(outcome.outcomeUnknown).toBeUndefined();
    expect(outcome).toMatchObject({ isError: true });
    // headersTimeoutMs (300) fires before the overall deadline (400): either is a timeout after sending.
    expect(outcome.content).toMatch(
      /^The GET request was sent but got no complete answer: (headers_)?timeout/,
    );
  });

  it('a POST to a port where nothing listens never left: a plain "not sent" failure', async () => {
    const outcome = await runParsed(action, post(`http://127.0.0.1:${closedPort}`), context());
    expect(outcome).toEqual({
      content: expect.stringMatching(/^The request was not sent: network/),
      isError: true,
    });
  });

  it('a POST the guard refuses never left: a plain "not sent" failure', async () => {
    const outcome = await runParsed(action, post('http://10.0.0.9'), context());
    expect(outcome).toEqual({
      content: expect.stringMatching(/^The request was not sent: private_address/),
      isError: true,
    });
  });
});
