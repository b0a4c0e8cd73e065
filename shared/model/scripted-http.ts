/**
 * Small `node:http` helpers of the scripted server: body reading, header recording, JSON and SSE replies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type StreamEvent, sse } from './scripted-wire.ts';

const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key', 'x-amz-security-token']);

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

// A SigV4 authorization header: the credential scope (date/region/service) is kept, key id and signature are not.
const SIGV4 = /^AWS4-HMAC-SHA256 Credential=[^/,]+\/(\d{8}\/[a-z0-9-]+\/[a-z0-9-]+\/aws4_request),/;

function redacted(name: string, value: string): string {
  if (!CREDENTIAL_HEADERS.has(name)) return value;
  const scope = name === 'authorization' ? SIGV4.exec(value)?.[1] : undefined;
  return scope ? `AWS4-HMAC-SHA256 Credential=[redacted]/${scope}, Signature=[redacted]` : '[redacted]';
}

/**
 * Request headers as recorded: lower-cased names, credentials replaced by `[redacted]` (of a SigV4
 * signature, only the credential scope is kept, so tests can see the region and service signed for).
 */
export function recordedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name] = redacted(name, String(value));
  }
  return headers;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, requestId: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': requestId });
  res.end(JSON.stringify(body));
}

/** Sends stream events as SSE frames of one 200 `text/event-stream` response. */
export function sendEvents(res: ServerResponse, events: StreamEvent[], requestId: string): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': requestId,
  });
  res.end(events.map(sse).join(''));
}
