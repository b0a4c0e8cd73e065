/**
 * IP addresses and CIDR blocks for the `cidr` matcher. Like EventBridge, only dotted four-part decimal IPv4 and
 * colon-hex IPv6 literals count as addresses (no hostnames, no `10.1` short forms, no embedded dotted IPv4, no
 * zone ids), and an IPv4-mapped IPv6 address (`::ffff:a00:1`) is treated as the IPv4 address it carries.
 * Validity is node:net's (`isIPv4`, `isIPv6`), the bits are compared here: no address library in the bundles
 * that save or match patterns (docs/deploy.md, "Function bundles"). The accepted forms are those ipaddr.js
 * accepted before (test/triggers/ip-address.test.ts compares both over a table).
 */
import { isIPv4, isIPv6 } from 'node:net';

/** An address as its bytes: 4 for IPv4 (an IPv4-mapped IPv6 address included), 16 for IPv6. */
type Address = { kind: 'ipv4' | 'ipv6'; bytes: number[] };

/** A parsed CIDR block. */
export type CidrBlock = { address: Address; bits: number };

const IPV6_LITERAL = /^[0-9a-fA-F:]*:[0-9a-fA-F:]*$/;

/** The 16 bytes of a valid colon-hex IPv6 literal (isIPv6 passed, so at most one `::` and ≤ 8 groups). */
function ipv6Bytes(text: string): number[] {
  const [head = '', tail] = text.split('::');
  const groupsOf = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  const groups = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return groups.flatMap((group) => [group >> 8, group & 0xff]);
}

/** `::ffff:0:0/96`: the IPv4 address such an IPv6 address carries, as ipaddr.js's `process` found it. */
function isIpv4Mapped(bytes: number[]): boolean {
  return bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
}

/** Parses an IP address literal, or returns undefined when the string is not one. */
export function parseIpAddress(text: string): Address | undefined {
  if (isIPv4(text)) return { kind: 'ipv4', bytes: text.split('.').map(Number) };
  if (!IPV6_LITERAL.test(text) || !isIPv6(text)) return undefined;
  const bytes = ipv6Bytes(text);
  return isIpv4Mapped(bytes) ? { kind: 'ipv4', bytes: bytes.slice(12) } : { kind: 'ipv6', bytes };
}

/** Parses `address/bits`, or explains what is wrong with it. */
export function parseCidr(text: string): { ok: true; block: CidrBlock } | { ok: false; message: string } {
  const pieces = text.split('/');
  if (pieces.length !== 2) {
    return {
      ok: false,
      message: `cidr needs one '/', as in "10.0.0.0/24" or "2001:db8::/32"; got ${JSON.stringify(text)}`,
    };
  }
  const [addressText = '', bitsText = ''] = pieces;
  const address = parseIpAddress(addressText);
  if (address === undefined) {
    return { ok: false, message: `cidr: ${JSON.stringify(addressText)} is not an IPv4 or IPv6 address` };
  }
  const maxBits = address.kind === 'ipv4' ? 32 : 128;
  if (!/^\d+$/.test(bitsText) || Number(bitsText) > maxBits) {
    return {
      ok: false,
      message: `cidr: the prefix length must be a whole number from 0 to ${maxBits}; got ${JSON.stringify(bitsText)}`,
    };
  }
  return { ok: true, block: { address, bits: Number(bitsText) } };
}

/** True when the first `bits` bits of both byte strings are equal. */
function samePrefix(a: number[], b: number[], bits: number): boolean {
  for (let index = 0; bits > 0; index++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((a[index] ?? 0) & mask) !== ((b[index] ?? 0) & mask)) return false;
  }
  return true;
}

/** True when the string is an IP address inside the block (an IPv4 block never contains IPv6 addresses). */
export function isInCidr(block: CidrBlock, value: string): boolean {
  const address = parseIpAddress(value);
  if (address === undefined || address.kind !== block.address.kind) return false;
  return samePrefix(address.bytes, block.address.bytes, block.bits);
}
