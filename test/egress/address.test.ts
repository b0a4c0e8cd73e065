import { describe, expect, it } from 'vitest';
import { classifyAddress, isLoopbackAddress, normalizeAddress } from '../../shared/egress/index.ts';
import { DENIED_ADDRESSES, PUBLIC_ADDRESSES } from './cases.ts';

describe('classifyAddress', () => {
  it.each(DENIED_ADDRESSES)('denies $label ($address) as $reason', ({ address, reason }) => {
    // Act
    const verdict = classifyAddress(address);

    // Assess
    expect(verdict).toMatchObject({ allowed: false, reason });
  });

  it.each(PUBLIC_ADDRESSES)('allows the public address %s', (address) => {
    expect(classifyAddress(address)).toEqual({ allowed: true });
  });

  it.each([
    ['169.254.169.254', '169.254.169.254/32'],
    ['10.1.2.3', '10.0.0.0/8'],
    ['fd00:ec2::254', 'fd00:ec2::254/128'],
    ['::ffff:127.0.0.1', '::ffff:0:0/96 (127.0.0.0/8)'],
    ['64:ff9b::a9fe:a9fe', '64:ff9b::/96 (169.254.169.254/32)'],
  ])('names the range that denies %s', (address, range) => {
    expect(classifyAddress(address)).toMatchObject({ allowed: false, range });
  });

  it.each([
    ['127.1', 'loopback'],
    ['127.0.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['0x7f.0.0.1', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['017700000001', 'loopback'],
    ['0', 'unspecified'],
    ['3232235777', 'private_address'],
    ['0xa9.0xfe.0xa9.0xfe', 'metadata'],
    ['0251.0376.0251.0376', 'metadata'],
    ['2852039166', 'metadata'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'loopback'],
    ['0000:0000:0000:0000:0000:ffff:7f00:0001', 'loopback'],
    ['::FFFF:127.0.0.1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1%eth0', 'link_local'],
    [' 10.0.0.1 ', 'private_address'],
  ])('normalises the spelling %s before classifying (%s)', (spelling, reason) => {
    expect(classifyAddress(spelling)).toMatchObject({ allowed: false, reason });
  });

  it.each([
    'example.com',
    '',
    '1.2.3.4.5',
    '256.0.0.1',
    '8.8.8.8#@10.0.0.1',
    '8.8.8.8/x',
    'fe80::1::2',
    '::ffff:1.2.3',
  ])('refuses %j as not an address', (input) => {
    expect(classifyAddress(input)).toMatchObject({ allowed: false, reason: 'invalid_address' });
  });
});

describe('normalizeAddress', () => {
  it.each([
    ['0x7f.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['::127.0.0.1', '::7f00:1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['[::1]', '::1'],
  ])('spells %s as %s', (input, canonical) => {
    expect(normalizeAddress(input)).toBe(canonical);
  });

  it('returns undefined for a host name', () => {
    expect(normalizeAddress('example.com')).toBeUndefined();
  });
});

describe('isLoopbackAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.9.9.9', true],
    ['::1', true],
    ['::ffff:127.0.0.1', false],
    ['::127.0.0.1', false],
    ['10.0.0.1', false],
    ['localhost', false],
  ])('%s → %s (mapped forms never count as loopback)', (address, expected) => {
    expect(isLoopbackAddress(address)).toBe(expected);
  });
});
