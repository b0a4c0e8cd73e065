/**
 * The undici connector and agent that enforce address checks at dial time. undici skips `connect.lookup`
 * for IP-literal hosts, so the check lives in the connector itself: it classifies the literal, or resolves
 * once and checks every answer, then dials the checked address (SNI kept) with DNS lookups refused.
 */
import { isIP } from 'node:net';
import type { Agent, buildConnector } from 'undici';
import { checkAddress, resolveChecked } from './dns.ts';
import type { ResolvedPolicy } from './policy.ts';
import { loadUndici } from './undici.ts';

type Connector = buildConnector.connector;
type ConnectOptions = buildConnector.Options;

/** Errors after which the next checked address of the same answer is worth a try. */
const RETRYABLE = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** A lookup that always fails: dialled hosts are IP literals, so a call would mean a second resolution. */
function refuseLookup(hostname: string, _options: unknown, callback: (err: Error) => void): void {
  callback(new Error(`egress guard: refusing a second DNS lookup of ${hostname}`));
}

/** The default dialler: undici's own (`build`, its buildConnector), with lookups refused. */
export function createDialer(connectTimeoutMs: number, build: typeof buildConnector): Connector {
  return build({ timeout: connectTimeoutMs, lookup: refuseLookup as never });
}

/** A connector that dials only addresses the policy allows, pinned to the one checked DNS answer. */
export function createGuardedConnector(policy: ResolvedPolicy, dialer: Connector): Connector {
  return (options, callback) => {
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    checkedAddresses(options.hostname, port, policy).then(
      (addresses) => dialInOrder(dialer, options, addresses, 0, callback),
      (error: Error) => callback(error, null),
    );
  };
}

async function checkedAddresses(hostname: string, port: number, policy: ResolvedPolicy): Promise<string[]> {
  if (isIP(hostname)) return [checkAddress(hostname, hostname, port, policy)];
  return resolveChecked(hostname, port, policy);
}

function dialInOrder(
  dial: Connector,
  options: ConnectOptions,
  addresses: readonly string[],
  index: number,
  callback: buildConnector.Callback,
): void {
  const address = addresses[index];
  if (address === undefined) {
    callback(new Error('egress guard: no address to dial'), null);
    return;
  }
  const name = options.hostname.replace(/\.+$/, '');
  const servername = options.servername ?? (isIP(name) ? undefined : name);
  const pinned: ConnectOptions = {
    ...options,
    hostname: address,
    ...(servername === undefined ? {} : { servername }),
  };
  dial(pinned, (...result) => {
    const [error] = result;
    const code = (error as { code?: string } | null)?.code;
    if (error && code !== undefined && RETRYABLE.has(code) && index + 1 < addresses.length) {
      dialInOrder(dial, options, addresses, index + 1, callback);
      return;
    }
    callback(...result);
  });
}

/** A connector that calls `onConnected` once a socket to the destination is open (the request may then leave). */
function reportingConnector(connect: Connector, onConnected: () => void): Connector {
  return (options, callback) =>
    connect(options, (...result) => {
      if (!result[0]) onConnected();
      callback(...result);
    });
}

/**
 * A dedicated undici Agent for one hop: guarded connector, headers timeout and header-size cap.
 * `onConnected` runs when a connection to the checked address is open: from then on the request may have
 * been received, which decides whether a failure is "not sent" or "outcome unknown".
 */
export async function createGuardedAgent(
  policy: ResolvedPolicy,
  dial?: Connector,
  onConnected?: () => void,
): Promise<Agent> {
  const undici = await loadUndici();
  const guarded = createGuardedConnector(
    policy,
    dial ?? createDialer(policy.headersTimeoutMs, undici.buildConnector),
  );
  return new undici.Agent({
    connect: onConnected ? reportingConnector(guarded, onConnected) : guarded,
    headersTimeout: policy.headersTimeoutMs,
    // bodyTimeout is only an idle timer; the overall deadline (limits.ts) is what cuts a slow drip.
    bodyTimeout: policy.totalTimeoutMs,
    maxHeaderSize: policy.maxHeaderBytes,
    connections: 1,
    pipelining: 1,
  });
}
