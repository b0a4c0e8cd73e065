/**
 * IP addresses and CIDR blocks for the `cidr` matcher, parsed with ipaddr.js. Like EventBridge, only dotted
 * four-part IPv4 and colon-hex IPv6 literals count as addresses (no hostnames, no `10.1` short forms, no zone
 * ids), and an IPv4-mapped IPv6 address is treated as the IPv4 address it carries.
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** A parsed CIDR block. */
export type CidrBlock = { address: Address; bits: number };

const IPV6_LITERAL = /^[0-9a-fA-F:]*:[0-9a-fA-F:]*$/;

/** Parses an IP address literal, or returns undefined when the string is not one. */
export function parseIpAddress(text: string): Address | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (IPV6_LITERAL.test(text) && ipaddr.IPv6.isValid(text)) return ipaddr.process(text);
  return undefined;
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
  const maxBits = address.kind() === 'ipv4' ? 32 : 128;
  if (!/^\d+$/.test(bitsText) || Number(bitsText) > maxBits) {
    return {
      ok: false,
      message: `cidr: the prefix length must be a whole number from 0 to ${maxBits}; got ${JSON.stringify(bitsText)}`,
    };
  }
  return { ok: true, block: { address, bits: Number(bitsText) } };
}

/** True when the string is an IP address inside the block (an IPv4 block never contains IPv6 addresses). */
export function isInCidr(block: CidrBlock, value: string): boolean {
  const address = parseIpAddress(value);
  if (address === undefined || address.kind() !== block.address.kind()) return false;
  return address.match(block.address, block.bits);
}
