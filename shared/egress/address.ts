/**
 * Address classification: which IP addresses the guard may dial. Pure, no sockets, no DNS.
 * CIDR math is ipaddr.js's; the table below is ours so every denial names its reason and range.
 */
import { isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { AddressDenyReason } from './errors.ts';

export type AddressClassification =
  | { allowed: true }
  | { allowed: false; reason: AddressDenyReason; range: string };

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;
type Range<T> = { cidr: string; parsed: [T, number]; reason: AddressDenyReason; embedsV4?: true };

/** How an IPv6 range holding an IPv4 address is handled: its v4 part is classified for the reason. */
const EMBEDDED = true as const;

// First match wins, so the narrow entries (metadata, broadcast) come before the ranges that contain them.
const V4_TABLE: ReadonlyArray<[string, AddressDenyReason]> = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private_address'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.169.254/32', 'metadata'], // EC2 IMDS (also Azure, GCP, OpenStack)
  ['169.254.170.2/32', 'metadata'], // ECS task credentials endpoint
  ['169.254.170.23/32', 'metadata'], // EKS Pod Identity agent
  ['169.254.0.0/16', 'link_local'],
  ['172.16.0.0/12', 'private_address'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments (Oracle Cloud metadata is 192.0.0.192)
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'], // deprecated 6to4 relay anycast
  ['192.168.0.0/16', 'private_address'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
];

const V6_TABLE: ReadonlyArray<[string, AddressDenyReason, true?]> = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0/96', 'ipv4_embedded', EMBEDDED], // IPv4-mapped
  ['::/96', 'ipv4_embedded', EMBEDDED], // IPv4-compatible (deprecated)
  ['64:ff9b::/96', 'ipv4_embedded', EMBEDDED], // NAT64 well-known prefix
  ['64:ff9b:1::/48', 'ipv4_embedded'], // NAT64 local use
  ['100::/64', 'discard'],
  ['2001:db8::/32', 'documentation'],
  ['2001:2::/48', 'benchmarking'],
  ['2001::/32', 'ipv4_embedded'], // Teredo
  ['2001:10::/28', 'reserved'], // ORCHID (deprecated)
  ['2001:20::/28', 'reserved'], // ORCHIDv2
  ['2001::/23', 'reserved'], // IETF protocol assignments
  ['2002::/16', 'ipv4_embedded'], // 6to4
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'reserved'], // SRv6 SIDs
  ['fd00:ec2::254/128', 'metadata'], // EC2 IMDS over IPv6
  ['fd00:ec2::23/128', 'metadata'], // EKS Pod Identity agent over IPv6
  ['fc00::/7', 'private_address'], // unique local
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'private_address'], // site-local (deprecated)
  ['ff00::/8', 'multicast'],
];

/**
 * The tables parsed, on the first classification rather than at import: parsing them is the first run of
 * ipaddr.js's address regexes (~2–3 ms, measured), which an invocation that dials no address (a turn without an
 * HTTP action, a delivery that is not an HTTP destination) never needs (docs/deploy.md, "Function bundles").
 */
type Parsed = {
  v4: Range<IPv4>[];
  v6: Range<IPv6>[];
  globalUnicastV6: [IPv6, number];
  loopbackV4: [IPv4, number];
};
let parsedTables: Parsed | undefined;
function tables(): Parsed {
  parsedTables ??= {
    v4: V4_TABLE.map(([cidr, reason]) => ({ cidr, parsed: ipaddr.IPv4.parseCIDR(cidr), reason })),
    v6: V6_TABLE.map(([cidr, reason, embedsV4]) => ({
      cidr,
      parsed: ipaddr.IPv6.parseCIDR(cidr),
      reason,
      ...(embedsV4 ? { embedsV4 } : {}),
    })),
    globalUnicastV6: ipaddr.IPv6.parseCIDR('2000::/3'),
    loopbackV4: ipaddr.IPv4.parseCIDR('127.0.0.0/8'),
  };
  return parsedTables;
}

/** Classifies one IP address (any IPv4 spelling WHATWG URL accepts, or IPv6, bracketed or not). Pure. */
export function classifyAddress(ip: string): AddressClassification {
  const address = parseAddress(ip);
  if (address === undefined) return { allowed: false, reason: 'invalid_address', range: 'not an IP address' };
  return address.kind() === 'ipv4' ? classifyV4(address as IPv4) : classifyV6(address as IPv6);
}

/** The canonical spelling of an IP address (`127.0.0.1`, `::ffff:7f00:1`), or undefined when it is not one. */
export function normalizeAddress(ip: string): string | undefined {
  const address = parseAddress(ip);
  if (address === undefined) return undefined;
  return address.kind() === 'ipv4' ? address.toString() : (address as IPv6).toRFC5952String();
}

/** True for 127.0.0.0/8 and ::1 only: the addresses `allowLoopbackPorts` may open (never mapped forms). */
export function isLoopbackAddress(ip: string): boolean {
  const address = parseAddress(ip);
  if (address === undefined) return false;
  if (address.kind() === 'ipv4') return (address as IPv4).match(tables().loopbackV4);
  return (address as IPv6).toNormalizedString() === '0:0:0:0:0:0:0:1';
}

function classifyV4(address: IPv4): AddressClassification {
  for (const range of tables().v4) {
    if (address.match(range.parsed)) return { allowed: false, reason: range.reason, range: range.cidr };
  }
  // Defence in depth: anything ipaddr.js knows as special (AS112, AMT…) is not a destination either.
  const special = address.range();
  if (special !== 'unicast') return { allowed: false, reason: 'reserved', range: `ipaddr.js:${special}` };
  return { allowed: true };
}

function classifyV6(address: IPv6): AddressClassification {
  for (const range of tables().v6) {
    if (!address.match(range.parsed)) continue;
    if (range.embedsV4) {
      const embedded = classifyV4(embeddedV4(address));
      if (!embedded.allowed)
        return { allowed: false, reason: embedded.reason, range: `${range.cidr} (${embedded.range})` };
    }
    return { allowed: false, reason: range.reason, range: range.cidr };
  }
  if (!address.match(tables().globalUnicastV6))
    return { allowed: false, reason: 'not_global_unicast', range: 'outside 2000::/3' };
  const special = address.range();
  if (special !== 'unicast') return { allowed: false, reason: 'reserved', range: `ipaddr.js:${special}` };
  return { allowed: true };
}

/** The low 32 bits of an IPv6 address, where mapped, compatible and NAT64 /96 addresses carry IPv4. */
function embeddedV4(address: IPv6): IPv4 {
  const high = address.parts[6] ?? 0;
  const low = address.parts[7] ?? 0;
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * Parses an address without trusting ipaddr.js's lenient IPv6 parser (it reads `::127.0.0.1` as mapped):
 * IPv6 is canonicalised by WHATWG URL first; non-dotted-quad IPv4 (`127.1`, `0x7f.1`, `2130706433`) goes
 * through the WHATWG host parser, exactly as a URL would normalise it.
 */
function parseAddress(input: string): IPv4 | IPv6 | undefined {
  let text = input.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone !== -1 && text.includes(':')) text = text.slice(0, zone);
  try {
    if (isIPv4(text)) return ipaddr.IPv4.parse(text);
    if (isIPv6(text)) return ipaddr.IPv6.parse(new URL(`http://[${text}]/`).hostname.slice(1, -1));
    if (/^[0-9a-fx.]+$/i.test(text)) {
      const host = new URL(`http://${text}/`).hostname;
      if (isIPv4(host)) return ipaddr.IPv4.parse(host);
    }
  } catch {
    return undefined;
  }
  return undefined;
}
