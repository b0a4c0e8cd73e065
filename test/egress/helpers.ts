/**
 * Test helpers for the egress guard: loopback listeners that count accepted sockets and record requests,
 * a scripted resolver, and a dial guard that records every socket the process opens and refuses any
 * destination other than loopback (so a bug can never send a test's packet off this machine).
 */
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ResolvedAddress, Resolver } from '../../shared/egress/index.ts';

export type RecordedRequest = {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
};

export type TestServer = {
  port: number;
  origin: string;
  /** Sockets this listener has accepted so far. */
  sockets(): number;
  /** Sockets still open now. */
  open(): number;
  requests: RecordedRequest[];
  close(): Promise<void>;
};

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

/** An HTTP listener on 127.0.0.1 (random port) that counts accepted sockets and records requests. */
export async function startServer(handler: Handler = (_req, res) => res.end('ok')): Promise<TestServer> {
  let sockets = 0;
  const requests: RecordedRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    handler(req, res, body);
  });
  let open = 0;
  server.on('connection', (socket: net.Socket) => {
    sockets += 1;
    open += 1;
    socket.on('close', () => {
      open -= 1;
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    sockets: () => sockets,
    open: () => open,
    requests,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A raw TCP listener on 127.0.0.1 that counts sockets and runs `onSocket` for each. */
export async function startRawServer(onSocket: (socket: net.Socket) => void): Promise<TestServer> {
  let sockets = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets += 1;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => {});
    socket.resume(); // read (and drop) the request so the peer's FIN is seen
    onSocket(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    sockets: () => sockets,
    open: () => open.size,
    requests: [],
    async close() {
      for (const socket of open) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Resolves once `condition` holds, polling every 10 ms; rejects after `ms`. */
export async function eventually(condition: () => boolean, ms = 2_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A resolver that answers from a table (a host's answers in turn on successive calls) and counts calls. */
export function scriptedResolver(
  table: Record<string, string[] | string[][]>,
): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
    const seen = calls.filter((h) => h === hostname).length;
    calls.push(hostname);
    const entry = table[hostname];
    if (entry === undefined) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const answers = (
      Array.isArray(entry[0]) ? (entry[Math.min(seen, entry.length - 1)] as string[]) : entry
    ) as string[];
    return answers.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
  };
  return Object.assign(resolver, { calls });
}

function dialHost(args: unknown[]): string {
  const first = args[0];
  if (typeof first === 'object' && first !== null) {
    const options = first as { host?: string; path?: string };
    return options.path ?? options.host ?? 'localhost';
  }
  return typeof args[1] === 'string' ? args[1] : 'localhost';
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1)$/;

/**
 * Installs, for the whole test file, a guard on node:net/node:tls `connect`: every dial is recorded in
 * `dials` (reset before each test) and any non-loopback destination throws instead of connecting.
 */
export function useDialGuard(): { dials: string[] } {
  const state = { dials: [] as string[] };
  const realNet = net.connect;
  const realCreate = net.createConnection;
  const realTls = tls.connect;
  const guard = <F extends (...args: never[]) => unknown>(real: F): F =>
    function (this: unknown, ...args: unknown[]) {
      const host = dialHost(args);
      state.dials.push(host);
      if (!LOOPBACK.test(host)) throw new Error(`dial guard: refused a non-loopback dial to ${host}`);
      return real.apply(this, args as never);
    } as unknown as F;
  beforeAll(() => {
    net.connect = guard(realNet);
    net.createConnection = guard(realCreate);
    tls.connect = guard(realTls);
  });
  afterEach(() => {
    state.dials.length = 0;
  });
  afterAll(() => {
    net.connect = realNet;
    net.createConnection = realCreate;
    tls.connect = realTls;
  });
  return state;
}
