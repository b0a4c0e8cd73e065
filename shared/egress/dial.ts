/**
 * Dialling a checked destination. The name is resolved ONCE through the policy's resolver and every answer
 * is checked (an IP literal is checked as it is); then the socket is opened to the checked address itself,
 * with a `lookup` that refuses, so nothing can resolve the name a second time (DNS rebinding between check
 * and connect is impossible: the pinned address is what is dialled). TLS keeps the NAME for SNI and for the
 * certificate's identity check, so pinning the address never weakens certificate verification.
 */
import net from 'node:net';
import tls from 'node:tls';
import { checkAddress, resolveChecked } from './dns.ts';
import type { ResolvedPolicy } from './policy.ts';

/** One socket to open: a checked address, its port, and for TLS the name to verify the certificate on. */
export type DialTarget = {
  address: string;
  port: number;
  tls: boolean;
  /** The host name (SNI and certificate identity); absent for an IP-literal host. */
  servername: string | undefined;
  timeoutMs: number;
};

/** Opens one connected socket (after the TLS handshake for https). */
export type Dialer = (target: DialTarget, signal: AbortSignal) => Promise<net.Socket>;

/** Errors after which the next checked address of the same answer is worth a try. */
const RETRYABLE = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'ECONNECT_TIMEOUT',
]);

/** A lookup that always fails: dialled hosts are IP literals, so a call would mean a second resolution. */
export function refuseLookup(hostname: string, _options: unknown, callback: (err: Error) => void): void {
  callback(new Error(`egress guard: refusing a second DNS lookup of ${hostname}`));
}

/** The addresses a host may be dialled at: the checked literal, or every checked answer of one resolution. */
export async function checkedAddresses(
  host: string,
  port: number,
  policy: ResolvedPolicy,
): Promise<string[]> {
  if (net.isIP(host)) return [checkAddress(host, host, port, policy)];
  return resolveChecked(host, port, policy);
}

/**
 * Dials `url`'s host at its checked addresses in order, falling back to the next one only when an address
 * is unreachable (never after a TLS failure: a certificate that does not match is an answer, not an outage).
 */
export async function dialChecked(
  url: URL,
  host: string,
  port: number,
  policy: ResolvedPolicy,
  signal: AbortSignal,
  dial: Dialer = dialSocket,
): Promise<net.Socket> {
  const addresses = await abortable(checkedAddresses(host, port, policy), signal);
  const tlsHop = url.protocol === 'https:';
  const servername = tlsHop && !net.isIP(host) ? host : undefined;
  for (let index = 0; ; index++) {
    const address = addresses[index];
    if (address === undefined) throw new Error('egress guard: no address to dial');
    try {
      return await dial(
        { address, port, tls: tlsHop, servername, timeoutMs: policy.headersTimeoutMs },
        signal,
      );
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const retry = typeof code === 'string' && RETRYABLE.has(code) && index + 1 < addresses.length;
      if (!retry || signal.aborted) throw error;
    }
  }
}

/** The production dialler: node:net or node:tls to the literal address, lookups refused, certificates checked. */
export function dialSocket(target: DialTarget, signal: AbortSignal): Promise<net.Socket> {
  const options = { host: target.address, port: target.port, lookup: refuseLookup as never };
  const socket = target.tls
    ? tls.connect({
        ...options,
        ...(target.servername === undefined ? {} : { servername: target.servername }),
        ALPNProtocols: ['http/1.1'],
      })
    : net.connect(options);
  return new Promise((resolve, reject) => {
    const fail = (error: unknown) => {
      cleanup();
      socket.destroy();
      reject(error);
    };
    const onAbort = () => fail(signal.reason);
    const onError = (error: Error) => fail(error);
    const timer = setTimeout(() => {
      fail(
        Object.assign(new Error(`connect timeout after ${target.timeoutMs} ms`), {
          code: 'ECONNECT_TIMEOUT',
        }),
      );
    }, target.timeoutMs);
    const onConnected = () => {
      cleanup();
      resolve(socket);
    };
    function cleanup() {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.off('error', onError);
      socket.off(target.tls ? 'secureConnect' : 'connect', onConnected);
    }
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', onError);
    socket.once(target.tls ? 'secureConnect' : 'connect', onConnected);
  });
}

/** `promise`, or the signal's reason as soon as it aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
