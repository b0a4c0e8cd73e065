/**
 * A fake payments service on loopback for the refund example (examples/refund-request.graph.yaml) and its
 * tests. `POST /refunds` with `{ customerId, amount, reason }` pays a refund; a repeated `Idempotency-Key`
 * answers the first refund again and pays nothing, as a payments API does. `refunds` counts what was paid.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Refund = {
  refundId: string;
  customerId: string;
  amount: number;
  reason: string;
  idempotencyKey?: string;
};

export type FakePayments = {
  url: string;
  port: number;
  /** Refunds paid, once each. */
  refunds: Refund[];
  /** Requests received (a retried request with a known key is counted here, not in `refunds`). */
  requests: number;
  /** Answers the next `count` refund requests with 503 and pays nothing (an outage, for retry tests). */
  failNext(count: number): void;
  close(): Promise<void>;
};

export async function startFakePayments(options: { port?: number } = {}): Promise<FakePayments> {
  const refunds: Refund[] = [];
  const byKey = new Map<string, Refund>();
  const state = { requests: 0, failing: 0 };
  const server: Server = createServer((request, response) => {
    const reply = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method !== 'POST' || request.url !== '/refunds') return reply(404, { error: 'not found' });
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.requests += 1;
      if (state.failing > 0) {
        state.failing -= 1;
        return reply(503, { error: 'payments are unavailable, try again later' });
      }
      let body: { customerId?: unknown; amount?: unknown; reason?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        return reply(400, { error: 'the body is not JSON' });
      }
      if (typeof body.customerId !== 'string' || typeof body.amount !== 'number' || body.amount <= 0)
        return reply(400, { error: 'customerId (string) and amount (positive number) are required' });
      const key = request.headers['idempotency-key'];
      const known = typeof key === 'string' ? byKey.get(key) : undefined;
      if (known) return reply(200, { ...known, status: 'refunded', replayed: true });
      const refund: Refund = {
        refundId: `rf_${refunds.length + 1}`,
        customerId: body.customerId,
        amount: body.amount,
        reason: typeof body.reason === 'string' ? body.reason : '',
        ...(typeof key === 'string' ? { idempotencyKey: key } : {}),
      };
      refunds.push(refund);
      if (typeof key === 'string') byKey.set(key, refund);
      reply(201, { ...refund, status: 'refunded' });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    refunds,
    get requests() {
      return state.requests;
    },
    failNext(count) {
      state.failing = count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
