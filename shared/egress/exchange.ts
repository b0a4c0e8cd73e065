/**
 * One HTTP/1.1 request/response over an already dialled, checked socket (node:http, no agent, no pooling).
 * The socket is handed to node:http through `createConnection`, so node:http never resolves or connects
 * anything itself. Headers must arrive within `headersTimeoutMs` and fit in `maxHeaderBytes`.
 */
import http from 'node:http';
import type net from 'node:net';
import { type EgressErrorContext, EgressLimitError } from './errors.ts';
import type { EncodedBody } from './request-body.ts';

/** What to send on the socket. */
export type Exchange = {
  url: URL;
  method: string;
  headers: Headers;
  body: EncodedBody;
  headersTimeoutMs: number;
  maxHeaderBytes: number;
  context: EgressErrorContext;
};

/** Default request headers, sent only when the caller set none of that name (as fetch does). */
const DEFAULTS: ReadonlyArray<readonly [string, string]> = [
  ['accept', '*/*'],
  ['accept-encoding', 'gzip, deflate, br'],
  ['user-agent', 'wf-runtime'],
];

/** Sends the request and resolves with the response once its headers arrived; `socket` is owned by the caller. */
export function exchange(
  socket: net.Socket,
  request: Exchange,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  const { url, body } = request;
  const headers: Record<string, string> = { host: url.host };
  for (const [name, value] of request.headers) headers[name] = value;
  for (const [name, value] of DEFAULTS) headers[name] ??= value;
  if (body.contentType !== undefined) headers['content-type'] ??= body.contentType;
  if (body.bytes !== undefined) headers['content-length'] = String(body.bytes.byteLength);
  else if (body.stream !== undefined) headers['transfer-encoding'] = 'chunked';
  const req = http.request({
    createConnection: () => socket,
    method: request.method,
    path: `${url.pathname}${url.search}`,
    headers,
    setHost: false,
    maxHeaderSize: request.maxHeaderBytes,
  });
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      req.destroy();
      reject(error);
    };
    const onAbort = () => fail(signal.reason);
    const timer = setTimeout(() => {
      const detail = `no response headers within ${request.headersTimeoutMs} ms`;
      fail(new EgressLimitError('headers_timeout', { ...request.context, detail }));
    }, request.headersTimeoutMs);
    req.on('error', fail); // also after the response: a late socket error must never go unhandled
    req.once('response', (response: http.IncomingMessage) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(response);
    });
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    writeBody(req, body).catch((error: unknown) => fail(error));
  });
}

async function writeBody(req: http.ClientRequest, body: EncodedBody): Promise<void> {
  if (body.stream === undefined) {
    req.end(body.bytes);
    return;
  }
  const reader = body.stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!req.write(value)) {
      await new Promise((resolve) => {
        req.once('drain', resolve);
        req.once('close', resolve);
      });
    }
    if (req.destroyed) {
      await reader.cancel();
      return;
    }
  }
  req.end();
}
