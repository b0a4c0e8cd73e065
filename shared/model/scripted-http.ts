/**
 * Small `node:http` helpers of the scripted server: body reading, header recording, JSON and SSE replies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key']);

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Request headers as recorded: lower-cased names, credentials replaced by `[redacted]`. */
export function recordedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name] = CREDENTIAL_HEADERS.has(name) ? '[redacted]' : String(value);
  }
  return headers;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, requestId: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': requestId });
  res.end(JSON.stringify(body));
}

/** Sends SSE frames as one 200 `text/event-stream` response. */
export function sendEvents(res: ServerResponse, frames: string[], requestId: string): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': requestId,
  });
  res.end(frames.join(''));
}
