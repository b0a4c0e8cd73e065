/**
 * Host names: pattern matching for allow/block lists and the built-in blocked hosts that no workflow can
 * allow-list (loopback names, cloud metadata names, internal suffixes, AWS API endpoints: aws-hosts.ts).
 */
import { isIP } from 'node:net';
import { normalizeAddress } from './address.ts';
import { blockedAwsService } from './aws-hosts.ts';

/** Lower-case host without IPv6 brackets or trailing dots (`Example.COM.` → `example.com`). */
export function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  while (h.endsWith('.')) h = h.slice(0, -1);
  return isIP(h) ? (normalizeAddress(h) ?? h) : h;
}

/** Why a host pattern is malformed, or undefined when it is fine (`api.example.com`, `*.example.com`, `::1`). */
export function hostPatternProblem(pattern: string): string | undefined {
  const p = normalizeHost(pattern);
  if (p === '') return 'empty pattern';
  if (isIP(p)) return undefined;
  const name = p.startsWith('*.') ? p.slice(2) : p;
  if (name.includes('*')) return 'a wildcard is only allowed as the whole first label (`*.example.com`)';
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(name)) return 'not a host name (no scheme, port or path)';
  return undefined;
}

/** Exact match, or `*.example.com` matching any name strictly below example.com (not example.com itself). */
export function matchesHostPattern(host: string, pattern: string): boolean {
  const h = normalizeHost(host);
  const p = normalizeHost(pattern);
  if (!p.startsWith('*.')) return h === p;
  if (isIP(h)) return false;
  const suffix = p.slice(1);
  return h.length > suffix.length && h.endsWith(suffix);
}

/** True when the host matches one of the patterns. */
export function matchesAnyHost(host: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => matchesHostPattern(host, pattern));
}

/** Names that always mean "this machine", "this network" or a cloud metadata service. */
export const BUILTIN_BLOCKED_HOSTS = [
  'localhost',
  '*.localhost',
  'localhost.localdomain',
  'ip6-localhost',
  'ip6-loopback',
  'instance-data',
  'metadata',
  'metadata.google.internal',
  '*.internal',
  '*.local',
  '*.localdomain',
  '*.home.arpa',
  '*.aws',
] as const;

/** The built-in rule that blocks this host (`*.internal`, `aws:sts`, `single-label name`), or undefined. */
export function builtinBlockRule(host: string): string | undefined {
  const h = normalizeHost(host);
  const pattern = BUILTIN_BLOCKED_HOSTS.find((p) => matchesHostPattern(h, p));
  if (pattern !== undefined) return pattern;
  const service = blockedAwsService(h);
  if (service !== undefined) return `aws:${service}`;
  // A dotless name is completed by the resolver's search domains: always an internal name.
  if (!isIP(h) && !h.includes('.')) return 'single-label name';
  return undefined;
}
