/**
 * A tiny Step Functions endpoint on 127.0.0.1 speaking AWS JSON 1.0 (as @aws-sdk/client-sfn's
 * AwsJson1_0Protocol does): `POST /`, `X-Amz-Target: AWSStepFunctions.<Op>`, JSON bodies; errors are
 * `{"__type":"<Code>","message":…}` with a 4xx/5xx status. Records every call; answers from a reply queue.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, beforeEach } from 'vitest';

export type SfnCall = { target: string; contentType: string; body: Record<string, unknown> };
export type SfnReply = { status: number; body: Record<string, unknown> };

export type SfnWire = {
  url: string;
  calls: SfnCall[];
  /** Answers for the next calls, in order; when empty, `200 {}`. */
  replies: SfnReply[];
  /** An SDK client on this endpoint, with the SDK's own retries off (the port retries). */
  client: SFNClient;
  reset(): void;
  close(): Promise<void>;
};

export const sfnError = (code: string, status = 400): SfnReply => ({
  status,
  body: { __type: code, message: `${code}: test answer` },
});

export async function startSfnWire(): Promise<SfnWire> {
  const calls: SfnCall[] = [];
  const replies: SfnReply[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      calls.push({
        target: String(request.headers['x-amz-target'] ?? ''),
        contentType: String(request.headers['content-type'] ?? ''),
        body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      });
      const reply = replies.shift() ?? { status: 200, body: {} };
      const payload = JSON.stringify(reply.body);
      response.writeHead(reply.status, {
        'content-type': 'application/x-amz-json-1.0',
        'content-length': Buffer.byteLength(payload),
        'x-amzn-requestid': `req-${calls.length}`,
      });
      response.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new SFNClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  return {
    url,
    calls,
    replies,
    client,
    reset() {
      calls.length = 0;
      replies.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        client.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * A test file's wire: started before its tests, emptied before each test, closed after them. Call it at the
 * file's top level; a support module registering hooks at its own top level would serve only the first file of
 * a worker that shares modules (test/setup/isolation.ts).
 */
export function useSfnWire(): SfnWire {
  const wire = {} as SfnWire;
  beforeAll(async () => {
    Object.assign(wire, await startSfnWire());
  });
  afterAll(() => wire.close());
  beforeEach(() => wire.reset());
  return wire;
}
