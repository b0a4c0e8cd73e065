/** Matching rules beyond the documented examples: types, arrays, absence, and properties checked with fast-check. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileEventPattern, matchesEventPattern } from '../../shared/triggers/index.ts';

type Case = [rule: string, pattern: unknown, event: unknown, matches: boolean];

const cases: Case[] = [
  ['anything-but needs the field to be present', { state: [{ 'anything-but': 'initializing' }] }, {}, false],
  [
    'anything-but prefix needs the field to be present',
    { state: [{ 'anything-but': { prefix: 'init' } }] },
    { detail: {} },
    false,
  ],
  ['anything-but passes a value of another type', { count: [{ 'anything-but': ['5'] }] }, { count: 5 }, true],
  [
    'anything-but of strings passes null',
    { state: [{ 'anything-but': 'initializing' }] },
    { state: null },
    true,
  ],
  [
    'anything-but on an array passes when one element is not excluded',
    { tags: [{ 'anything-but': 'a' }] },
    { tags: ['a', 'b'] },
    true,
  ],
  [
    'anything-but on an array fails when every element is excluded',
    { tags: [{ 'anything-but': ['a', 'b'] }] },
    { tags: ['a', 'b'] },
    false,
  ],
  ['an exact value matches any element of an array', { tags: ['b'] }, { tags: ['a', 'b', 'c'] }, true],
  ['a value nested in arrays of arrays still counts', { tags: ['c'] }, { tags: [['a'], ['b', ['c']]] }, true],
  ['a string never equals a number', { count: ['5'] }, { count: 5 }, false],
  ['a number never equals a string', { count: [5] }, { count: '5' }, false],
  ['numbers compare numerically', { count: [300] }, JSON.parse('{"count": 3.0e2}'), true],
  ['booleans are not strings', { enabled: ['true'] }, { enabled: true }, false],
  ['prefix never matches a number', { code: [{ prefix: '12' }] }, { code: 123 }, false],
  ['numeric never matches a numeric string', { code: [{ numeric: ['>', 0] }] }, { code: '123' }, false],
  ['numeric >= includes its bound', { code: [{ numeric: ['>=', 10, '<', 20] }] }, { code: 10 }, true],
  ['numeric < excludes its bound', { code: [{ numeric: ['>=', 10, '<', 20] }] }, { code: 20 }, false],
  ['exists true matches a null value', { a: [{ exists: true }] }, { a: null }, true],
  ['exists true does not match an object value', { a: [{ exists: true }] }, { a: { b: 1 } }, false],
  ['exists false matches an empty array', { a: [{ exists: false }] }, { a: [] }, true],
  [
    'exists false matches when a parent is missing',
    { detail: { a: [{ exists: false }] } },
    { source: 'x' },
    true,
  ],
  [
    'exists false fails when any element of an array of objects has the field',
    { items: { a: [{ exists: false }] } },
    { items: [{ a: 1 }, { b: 2 }] },
    false,
  ],
  ['an exact value or exists false: field missing', { a: ['x', { exists: false }] }, {}, true],
  ['an exact value or exists false: other value', { a: ['x', { exists: false }] }, { a: 'y' }, false],
  ['an object in the event does not match a leaf array', { detail: ['x'] }, { detail: { x: 1 } }, false],
  [
    'a leaf in the event does not match a nested pattern',
    { detail: { state: ['x'] } },
    { detail: 'state' },
    false,
  ],
  [
    'fields of one array element match together',
    { items: { a: [1], b: [2] } },
    { items: [{ a: 1, b: 2 }] },
    true,
  ],
  [
    'fields of different array elements do not match together',
    { items: { a: [1], b: [2] } },
    {
      items: [
        { a: 1, b: 3 },
        { a: 2, b: 2 },
      ],
    },
    false,
  ],
  [
    'consistency holds through nested arrays',
    { o: { i: { a: [1], b: [2] } } },
    { o: [{ i: [{ a: 1 }, { b: 2 }] }] },
    false,
  ],
  [
    'fields outside the array combine with any element',
    { source: ['s'], items: { a: [2] } },
    { source: 's', items: [{ a: 1 }, { a: 2 }] },
    true,
  ],
  ['a dot inside a field name is a path separator', { a: { b: [1] } }, { 'a.b': 1 }, true],
  [
    'a field named like a matcher is a field outside $or',
    { detail: { prefix: ['x'] } },
    { detail: { prefix: 'x' } },
    true,
  ],
  ['wildcard \\* is a literal asterisk', { f: [{ wildcard: 'a\\*b' }] }, { f: 'a*b' }, true],
  ['wildcard \\* does not match other characters', { f: [{ wildcard: 'a\\*b' }] }, { f: 'axb' }, false],
  ['wildcard \\\\ is a literal backslash', { f: [{ wildcard: 'C:\\\\*' }] }, { f: 'C:\\Windows' }, true],
  ['a lone wildcard matches the empty string', { f: [{ wildcard: '*' }] }, { f: '' }, true],
  ['a wildcard match covers the whole value', { f: [{ wildcard: 'a*c' }] }, { f: 'abcd' }, false],
  [
    'a wildcard does not reuse characters of its prefix and suffix',
    { f: [{ wildcard: 'ab*ba' }] },
    { f: 'aba' },
    false,
  ],
  [
    'cidr ignores strings that are not IP addresses',
    { ip: [{ cidr: '0.0.0.0/0' }] },
    { ip: 'localhost' },
    false,
  ],
  ['cidr refuses short IPv4 forms', { ip: [{ cidr: '10.0.0.0/8' }] }, { ip: '10.1' }, false],
  ['an IPv4 block never matches an IPv6 address', { ip: [{ cidr: '0.0.0.0/0' }] }, { ip: '::1' }, false],
  [
    'an IPv4-mapped IPv6 address counts as IPv4',
    { ip: [{ cidr: '10.0.0.0/8' }] },
    { ip: '::ffff:a00:1' },
    true,
  ],
  [
    'prefix ignoring case folds both sides',
    { s: [{ prefix: { 'equals-ignore-case': 'ÄB' } }] },
    { s: 'äbc' },
    true,
  ],
  [
    '$or alternatives can each match different fields',
    { $or: [{ a: [1] }, { b: [2] }], c: [3] },
    { b: 2, c: 3 },
    true,
  ],
  [
    '$or still requires the fields beside it',
    { $or: [{ a: [1] }, { b: [2] }], c: [3] },
    { b: 2, c: 4 },
    false,
  ],
  [
    'fields not in the pattern are ignored',
    { source: ['x'] },
    { source: 'x', detail: { anything: [1, 2] } },
    true,
  ],
];

describe('matchesEventPattern semantics', () => {
  it.each(cases)('%s', (_rule, pattern, event, expected) => {
    expect(matchesEventPattern(pattern, event)).toBe(expected);
  });

  it('matches a long value against a many-wildcard pattern in linear time', () => {
    const pattern = { f: [{ wildcard: `${'a*'.repeat(50)}b` }] };
    const started = performance.now();
    expect(matchesEventPattern(pattern, { f: 'a'.repeat(100_000) })).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('compiles once and matches many events', () => {
    const matcher = compileEventPattern({ source: ['a'] });
    expect([{ source: 'a' }, { source: 'b' }, { source: ['b', 'a'] }].map(matcher)).toEqual([
      true,
      false,
      true,
    ]);
  });
});

/** A reference glob matcher built on a regular expression, to check the linear-time matcher against. */
function referenceWildcard(pattern: string, value: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${source}$`).test(value);
}

describe('properties', () => {
  const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c'), maxLength: 8 });

  it('wildcard matching agrees with a regular-expression reference', () => {
    const pattern = fc
      .array(text, { minLength: 1, maxLength: 4 })
      .map((parts) => parts.join('*'))
      .filter((joined) => !joined.includes('**'));
    fc.assert(
      fc.property(pattern, text, (wildcard, value) => {
        expect(matchesEventPattern({ f: [{ wildcard }] }, { f: value })).toBe(
          referenceWildcard(wildcard, value),
        );
      }),
    );
  });

  it('anything-but a string is the negation of matching it, for present string values', () => {
    fc.assert(
      fc.property(text, text, (excluded, value) => {
        const positive = matchesEventPattern({ f: [excluded] }, { f: value });
        expect(matchesEventPattern({ f: [{ 'anything-but': excluded }] }, { f: value })).toBe(!positive);
      }),
    );
  });

  it('a numeric range matches exactly the numbers inside it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -100, max: 100 }),
        fc.integer({ min: -100, max: 100 }),
        fc.integer({ min: -150, max: 150 }),
        (a, b, n) => {
          fc.pre(a < b);
          expect(matchesEventPattern({ n: [{ numeric: ['>', a, '<=', b] }] }, { n })).toBe(n > a && n <= b);
        },
      ),
    );
  });
});
