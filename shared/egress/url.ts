/**
 * URL-level checks, done before any DNS or socket: scheme, userinfo, port, literal address, blocked and
 * allowed hosts. Parsing is WHATWG `URL`, so every numeric spelling of an IPv4 address is normalised first.
 */
import { isIP } from 'node:net';
import { checkAddress } from './dns.ts';
import { EgressDeniedError } from './errors.ts';
import { builtinBlockRule, matchesAnyHost, normalizeHost } from './hosts.ts';
import type { ResolvedPolicy } from './policy.ts';

/** A parsed destination: the URL, its normalised host, effective port and, for IP literals, the address. */
export type Target = { url: URL; host: string; port: number; literal: string | undefined };

const SCHEMES = new Set(['http:', 'https:']);

/** Parses a URL and checks scheme and userinfo. Throws `EgressDeniedError`. */
export function parseTarget(input: string | URL): Target {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch (cause) {
    throw new EgressDeniedError('invalid_url', { detail: 'not an absolute URL' }, cause);
  }
  const context = { host: url.hostname, url: redactUrl(url) };
  if (!SCHEMES.has(url.protocol)) {
    throw new EgressDeniedError('scheme', {
      ...context,
      detail: `scheme ${url.protocol} is not http or https`,
    });
  }
  if (url.username !== '' || url.password !== '') {
    throw new EgressDeniedError('userinfo', { ...context, detail: 'credentials in the URL are refused' });
  }
  const host = normalizeHost(url.hostname);
  if (host === '') throw new EgressDeniedError('invalid_url', { ...context, detail: 'empty host' });
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { url, host, port, literal: isIP(host) ? host : undefined };
}

/**
 * Every check that needs no DNS: port, literal address class, blocked hosts, allow-lists.
 * `localhost` on an `allowLoopbackPorts` port skips the built-in block (the policy's own blocks still apply).
 */
export function checkTarget(target: Target, policy: ResolvedPolicy): void {
  const { host, port, literal } = target;
  const context = { host, url: redactUrl(target.url) };
  if (!policy.allowedPorts.has(port) && !policy.loopbackPorts.has(port)) {
    throw new EgressDeniedError('port', { ...context, detail: `port ${port} is not allowed` });
  }
  if (literal !== undefined) checkAddress(literal, host, port, policy);
  const loopbackName = host === 'localhost' && policy.loopbackPorts.has(port);
  const rule = loopbackName ? undefined : builtinBlockRule(host);
  if (rule !== undefined)
    throw new EgressDeniedError('blocked_host', { ...context, detail: `built-in rule ${rule}` });
  if (matchesAnyHost(host, policy.blockedHosts)) {
    throw new EgressDeniedError('blocked_host', { ...context, detail: 'in the policy blockedHosts' });
  }
  for (const list of policy.allowLists) {
    if (!matchesAnyHost(host, list)) throw new EgressDeniedError('host_not_allowed', context);
  }
}

/** The URL without userinfo, query or fragment, safe for errors and logs. */
export function redactUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
