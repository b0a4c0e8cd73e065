/**
 * The egress policy: what a caller may reach and the limits of every response. Validated once into a
 * `ResolvedPolicy` with every default filled in.
 */
import { lookup } from 'node:dns/promises';
import { EgressPolicyError } from './errors.ts';
import { hostPatternProblem } from './hosts.ts';

/** One answer of a resolver. */
export type ResolvedAddress = { address: string; family: 4 | 6 };

/** Resolves a host name to every address it has (the guard checks all of them). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** What the guard lets through. Every field is optional; see docs/egress.md for defaults. */
export type EgressPolicy = {
  /** Exact host names and `*.example.com` wildcards. When given, every other host is denied. */
  allowedHosts?: string[];
  /** Hosts denied even when allow-listed (the runtime's own API and approval hosts). */
  blockedHosts?: string[];
  /** Destination ports for non-loopback addresses. Default 80 and 443. */
  allowedPorts?: number[];
  /** Tests and the local stack only: 127.0.0.0/8, ::1 and `localhost` become reachable on these ports. */
  allowLoopbackPorts?: number[];
  /** Cap on the DECODED response body, in bytes. Default 1 MiB. */
  maxResponseBytes?: number;
  /** Overall deadline of the request, redirects and body included. Default 15 s. */
  totalTimeoutMs?: number;
  /** Time allowed for each response's headers to arrive once the request is sent. Default 5 s. */
  headersTimeoutMs?: number;
  /** Cap on the size of a response's header section. Default 16 KiB. */
  maxHeaderBytes?: number;
  /** Redirects followed before giving up. Default 5. */
  maxRedirects?: number;
  /** Name resolution. Default: node:dns `lookup(hostname, { all: true })`. */
  resolve?: Resolver;
};

/** Default limits of a policy. */
export const EGRESS_DEFAULTS = {
  allowedPorts: [80, 443],
  maxResponseBytes: 1024 * 1024,
  totalTimeoutMs: 15_000,
  headersTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  maxRedirects: 5,
} as const;

/** A policy with every default applied; `allowLists` are intersected (a host must match each of them). */
export type ResolvedPolicy = {
  allowLists: ReadonlyArray<readonly string[]>;
  blockedHosts: readonly string[];
  allowedPorts: ReadonlySet<number>;
  loopbackPorts: ReadonlySet<number>;
  maxResponseBytes: number;
  totalTimeoutMs: number;
  headersTimeoutMs: number;
  maxHeaderBytes: number;
  maxRedirects: number;
  resolve: Resolver;
};

/** The production resolver: every address the operating system's resolver returns. */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** Validates a policy and fills in the defaults. Throws `EgressPolicyError` on a malformed field. */
export function resolvePolicy(policy: EgressPolicy = {}): ResolvedPolicy {
  const allowLists = policy.allowedHosts === undefined ? [] : [patterns('allowedHosts', policy.allowedHosts)];
  return {
    allowLists,
    blockedHosts: patterns('blockedHosts', policy.blockedHosts ?? []),
    allowedPorts: ports('allowedPorts', policy.allowedPorts ?? EGRESS_DEFAULTS.allowedPorts),
    loopbackPorts: ports('allowLoopbackPorts', policy.allowLoopbackPorts ?? []),
    maxResponseBytes: positive(
      'maxResponseBytes',
      policy.maxResponseBytes ?? EGRESS_DEFAULTS.maxResponseBytes,
    ),
    totalTimeoutMs: positive('totalTimeoutMs', policy.totalTimeoutMs ?? EGRESS_DEFAULTS.totalTimeoutMs),
    headersTimeoutMs: positive(
      'headersTimeoutMs',
      policy.headersTimeoutMs ?? EGRESS_DEFAULTS.headersTimeoutMs,
    ),
    maxHeaderBytes: positive('maxHeaderBytes', policy.maxHeaderBytes ?? EGRESS_DEFAULTS.maxHeaderBytes),
    maxRedirects: nonNegative('maxRedirects', policy.maxRedirects ?? EGRESS_DEFAULTS.maxRedirects),
    resolve: policy.resolve ?? systemResolver,
  };
}

/** The same policy, further narrowed to the hosts of one request (intersection, never a widening). */
export function narrowPolicy(policy: ResolvedPolicy, allowedHosts: readonly string[]): ResolvedPolicy {
  return { ...policy, allowLists: [...policy.allowLists, patterns('allowedHosts', allowedHosts)] };
}

function patterns(field: string, list: readonly string[]): readonly string[] {
  for (const pattern of list) {
    const problem = hostPatternProblem(pattern);
    if (problem !== undefined) throw new EgressPolicyError(field, `${JSON.stringify(pattern)}: ${problem}`);
  }
  return [...list];
}

function ports(field: string, list: readonly number[]): ReadonlySet<number> {
  for (const port of list) {
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new EgressPolicyError(field, `${port} is not a TCP port`);
    }
  }
  return new Set(list);
}

function positive(field: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0)
    throw new EgressPolicyError(field, 'must be a positive integer');
  return value;
}

function nonNegative(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 0)
    throw new EgressPolicyError(field, 'must be a non-negative integer');
  return value;
}
