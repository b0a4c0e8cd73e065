/**
 * The `cidr` matcher's addresses and blocks (shared/triggers/ip-address.ts, node:net) against the ipaddr.js
 * implementation it replaced, kept here as the oracle: every address, block and (block, value) pair of the table
 * — and the forms built from its pieces — is accepted, refused and matched exactly as before.
 */
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { isInCidr, parseCidr, parseIpAddress } from '../../shared/triggers/ip-address.ts';

/** The replaced implementation (ipaddr.js 2), verbatim but for its names. */
const IPV6_LITERAL = /^[0-9a-fA-F:]*:[0-9a-fA-F:]*$/;
function oldParse(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (IPV6_LITERAL.test(text) && ipaddr.IPv6.isValid(text)) return ipaddr.process(text);
  return undefined;
}
function oldCidr(text: string): { address: ipaddr.IPv4 | ipaddr.IPv6; bits: number } | string {
  const pieces = text.split('/');
  if (pieces.length !== 2) return 'slashes';
  const address = oldParse(pieces[0] ?? '');
  if (address === undefined) return 'address';
  const maxBits = address.kind() === 'ipv4' ? 32 : 128;
  const bitsText = pieces[1] ?? '';
  if (!/^\d+$/.test(bitsText) || Number(bitsText) > maxBits) return `bits ${maxBits}`;
  return { address, bits: Number(bitsText) };
}
function oldMatch(block: string, value: string): boolean {
  const parsed = oldCidr(block);
  const address = oldParse(value);
  if (typeof parsed === 'string' || address === undefined || address.kind() !== parsed.address.kind())
    return false;
  return address.match(parsed.address, parsed.bits);
}
const newCidr = (text: string) => {
  const parsed = parseCidr(text);
  if (parsed.ok) return parsed.block.address.kind;
  return /one '\/'/.test(parsed.message)
    ? 'slashes'
    : /not an IPv4/.test(parsed.message)
      ? 'address'
      : `bits ${/to (\d+)/.exec(parsed.message)?.[1]}`;
};

const ADDRESSES = [
  // accepted
  '0.0.0.0',
  '10.0.0.1',
  '255.255.255.255',
  '192.168.1.254',
  '::',
  '::1',
  '1::',
  '2001:db8::1',
  'fe80::1',
  '2001:DB8:0:0:0:0:0:1',
  '1:2:3:4:5:6:7:8',
  '::ffff:a00:1',
  '::FFFF:7f00:1',
  '0:0:0:0:0:ffff:c0a8:101',
  '::ffff:0:0',
  '::fffe:a00:1',
  '::ffff:1:a00:1',
  '64:ff9b::a00:1',
  '1:2:3:4:5:6:7::',
  '::2:3:4:5:6:7:8',
  '1::8',
  '0000:0000:0000:0000:0000:0000:0000:0001',
  '2001:0db8::0001',
  // refused
  '',
  ' ',
  '10.1',
  '10.0.1',
  '10.0.0.1.5',
  '256.0.0.1',
  '1.2.3.256',
  '01.2.3.4',
  '1.2.3.04',
  '0x0a.0.0.1',
  '10.0.0.1 ',
  ' 10.0.0.1',
  '10..0.1',
  '-1.0.0.0',
  '1e1.0.0.1',
  '10.0.0.',
  'localhost',
  'example.com',
  '::ffff:10.0.0.1',
  '::10.0.0.1',
  'fe80::1%eth0',
  '[::1]',
  ':::',
  '1:::2',
  '1::2::3',
  '1:2:3:4:5:6:7:8:9',
  '1:2:3:4:5:6:7',
  '12345::',
  'g::1',
  ':1',
  '1:',
  '1:2:3:4:5:6:7:8::',
  '::1:2:3:4:5:6:7:8',
  '١.٢.٣.٤',
  '１.2.3.4',
  '4294967295',
  '0',
  ':',
];
const BLOCKS = [
  '10.0.0.0/8',
  '10.0.0.0/0',
  '10.0.0.5/8',
  '10.0.0.0/24',
  '10.0.0.1/32',
  '10.0.0.0/33',
  '10.0.0.0/08',
  '10.0.0.0/-1',
  '10.0.0.0/',
  '10.0.0.0',
  '10.0.0.0/8/8',
  '10.0.0.0/ 8',
  '10.0.0.0/1.5',
  '0.0.0.0/0',
  '2001:db8::/32',
  '2001:db8::/128',
  '2001:db8::/129',
  '::/0',
  '::1/128',
  '::ffff:a00:0/8',
  '::ffff:a00:0/104',
  '::ffff:a00:0/96',
  '::ffff:a00:0/33',
  'fe80::/10',
  '2001:db8::1/127',
  '10.1/8',
  'example.com/8',
  '::ffff:10.0.0.0/104',
];
const VALUES = [
  '10.0.0.1',
  '10.255.255.255',
  '11.0.0.0',
  '10.0.1.0',
  '0.0.0.0',
  '::ffff:a00:1',
  '::ffff:b00:1',
  '::1',
  '2001:db8::1',
  '2001:db8:ffff::',
  '2001:db9::',
  'fe80::1',
  'febf::1',
  'fec0::1',
  '2001:db8::',
  '10.1',
  'localhost',
  '::ffff:10.0.0.1',
  '::',
];

describe('cidr addresses and blocks (node:net) as ipaddr.js accepted them', () => {
  it('accepts and refuses the same addresses, and an IPv4-mapped one is IPv4', () => {
    const before = ADDRESSES.map((text) => [text, oldParse(text)?.kind() ?? 'refused']);
    const after = ADDRESSES.map((text) => [text, parseIpAddress(text)?.kind ?? 'refused']);
    expect(after).toEqual(before);
    expect(Object.fromEntries(after)['::ffff:a00:1']).toBe('ipv4');
  });

  it('accepts and refuses the same blocks, for the same reason', () => {
    const before = BLOCKS.map((text) => {
      const parsed = oldCidr(text);
      return [text, typeof parsed === 'string' ? parsed : parsed.address.kind()];
    });
    expect(BLOCKS.map((text) => [text, newCidr(text)])).toEqual(before);
  });

  it('matches every value of the table against every block as before', () => {
    const pairs = BLOCKS.flatMap((block) =>
      [...VALUES, ...ADDRESSES].map((value) => [block, value] as const),
    );
    const before = pairs.map(([block, value]) => [block, value, oldMatch(block, value)]);
    const after = pairs.map(([block, value]) => {
      const parsed = parseCidr(block);
      return [block, value, parsed.ok && isInCidr(parsed.block, value)];
    });
    expect(after).toEqual(before);
    expect(before.filter(([, , matched]) => matched).length).toBeGreaterThan(40);
  });

  it('agrees on every colon-hex form built from the pieces of IPv6 literals', () => {
    const pieces = ['', '0', '1', 'ffff', 'FFFF', 'a00', '10000', 'db8', '2001', 'g'];
    const forms: string[] = [];
    for (const a of pieces)
      for (const b of pieces)
        for (const joiner of [':', '::', ':::'])
          for (const tail of ['', ':1', '::1', ':0:0:0:0:0']) forms.push(`${a}${joiner}${b}${tail}`);
    const before = forms.map((text) => [text, oldParse(text)?.toNormalizedString() ?? 'refused']);
    const after = forms.map((text) => {
      const parsed = parseIpAddress(text);
      return [
        text,
        parsed === undefined ? 'refused' : ipaddr.fromByteArray(parsed.bytes).toNormalizedString(),
      ];
    });
    expect(after).toEqual(before);
  });
});
