/**
 * A loopback pass-through in front of DynamoDB Local that can hold one request back while another writer goes
 * first: the way the IAM flow (flow.ts) makes a race that only contention reaches, for real and deterministically.
 * Armed with a match on the request (its `X-Amz-Target` operation and JSON body), it runs `interleave` once,
 * just before the first matching request reaches the table; that request then meets the table as the other
 * writer left it, exactly as when that writer wins the race. Every other request is forwarded unchanged
 * (DynamoDB Local does not check the signature, so the changed Host header does not matter).
 */
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type DynamoInterleave = {
  url: string;
  /**
   * Runs `during` (an invocation) and `interleave` (the other writer) once, just before `during`'s first request
   * whose operation (`TransactWriteItems`, …) and JSON body match reaches the table; that request is held until
   * `interleave` is done. Fails when no request of `during` matched. One at a time.
   */
  before(
    matches: (operation: string, body: string) => boolean,
    interleave: () => Promise<unknown>,
    during: () => Promise<unknown>,
  ): Promise<void>;
  close(): Promise<void>;
};

const bodyOf = (request: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

export async function startDynamoInterleave(target: string): Promise<DynamoInterleave> {
  const upstream = new URL(target);
  let armed:
    | { matches: (operation: string, body: string) => boolean; interleave: () => Promise<unknown> }
    | undefined;
  let interleaved: Promise<unknown> | undefined;
  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      const operation =
        String(request.headers['x-amz-target'] ?? '')
          .split('.')
          .at(-1) ?? '';
      const hold = armed;
      if (hold?.matches(operation, body.toString('utf8'))) {
        armed = undefined;
        interleaved = hold.interleave();
        await interleaved;
      }
      const forwarded = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: request.method,
          path: request.url,
          headers: { ...request.headers, host: upstream.host },
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(response);
        },
      );
      forwarded.on('error', (error) => response.destroy(error));
      forwarded.end(body);
    })().catch((error: unknown) => response.destroy(error as Error));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async before(matches, interleave, during) {
      if (armed) throw new Error('an interleave is armed already');
      armed = { matches, interleave };
      interleaved = undefined;
      try {
        await during();
      } finally {
        armed = undefined;
      }
      if (interleaved === undefined) throw new Error('no request matched the armed interleave');
      await interleaved;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
