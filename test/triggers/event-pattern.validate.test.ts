import { describe, expect, it } from 'vitest';
import {
  compileEventPattern,
  EventPatternError,
  EventPatternSchema,
  formatIssues,
  isEventPattern,
  validateEventPattern,
} from '../../shared/triggers/index.ts';

type Refused = [what: string, pattern: unknown, path: string, message: string];

const refused: Refused[] = [
  ['an array pattern', ['aws.ec2'], '', 'an event pattern must be a JSON object'],
  ['a string pattern', 'aws.ec2', '', 'an event pattern must be a JSON object'],
  ['a null pattern', null, '', 'an event pattern must be a JSON object'],
  ['an empty pattern', {}, '', 'empty objects are not allowed'],
  ['an empty nested object', { detail: {} }, 'detail', 'empty objects are not allowed'],
  [
    'a leaf that is not an array',
    { source: 'aws.ec2' },
    'source',
    'values to match must be in an array, as in "source": ["aws.ec2"]',
  ],
  [
    'a numeric leaf that is not an array',
    { detail: { count: 5 } },
    'detail.count',
    'values to match must be in an array',
  ],
  ['an empty array', { source: [] }, 'source', 'an empty array matches nothing'],
  ['a nested array', { source: [['aws.ec2']] }, 'source', 'nested arrays are not allowed'],
  ['an unknown matcher', { source: [{ contains: 'ec2' }] }, 'source', "unknown matcher 'contains'"],
  [
    "Event Ruler's undocumented 'exactly'",
    { source: [{ exactly: 'ec2' }] },
    'source',
    "unknown matcher 'exactly'",
  ],
  [
    'a matcher with two keys',
    { source: [{ prefix: 'a', suffix: 'b' }] },
    'source',
    "a matcher takes exactly one key, found 'prefix', 'suffix'",
  ],
  ['an empty matcher', { source: [{}] }, 'source', 'an empty matcher {} matches nothing'],
  [
    'the item number in a longer list',
    { source: ['a', { prefix: 1 }] },
    'source',
    'item 2: prefix needs a string',
  ],
  [
    'prefix with another object',
    { source: [{ prefix: { 'anything-but': 'a' } }] },
    'source',
    'prefix needs a string, or {"equals-ignore-case": "..."}',
  ],
  [
    'suffix ignoring case with a number',
    { source: [{ suffix: { 'equals-ignore-case': 5 } }] },
    'source',
    'suffix {"equals-ignore-case": ...} needs a string',
  ],
  [
    'equals-ignore-case with a number',
    { source: [{ 'equals-ignore-case': 5 }] },
    'source',
    'equals-ignore-case needs a string',
  ],
  [
    'numeric without operator',
    { detail: { amount: [{ numeric: [] }] } },
    'detail.amount',
    "numeric matcher needs an operator such as '>'",
  ],
  [
    'numeric that is not an array',
    { detail: { amount: [{ numeric: 5 }] } },
    'detail.amount',
    "numeric matcher needs an operator such as '>'",
  ],
  [
    'numeric with an unknown operator',
    { amount: [{ numeric: ['!=', 5] }] },
    'amount',
    "numeric matcher needs an operator such as '>' first",
  ],
  [
    'numeric with a string operand',
    { amount: [{ numeric: ['>', '10'] }] },
    'amount',
    "numeric: '>' must be followed by a number",
  ],
  [
    'numeric with the upper bound first',
    { amount: [{ numeric: ['<', 10, '>', 0] }] },
    'amount',
    "a range starts with '>' or '>='",
  ],
  [
    'numeric = with a second term',
    { amount: [{ numeric: ['=', 5, '<', 6] }] },
    'amount',
    "'=' takes a single number",
  ],
  [
    'numeric range with a wrong upper operator',
    { amount: [{ numeric: ['>', 0, '>', 6] }] },
    'amount',
    "a range's upper bound needs '<' or '<='",
  ],
  [
    'numeric range with bounds reversed',
    { amount: [{ numeric: ['>', 10, '<', 5] }] },
    'amount',
    'the lower bound 10 must be less than the upper bound 5',
  ],
  [
    'numeric with too many terms',
    { amount: [{ numeric: ['>', 0, '<', 10, 3] }] },
    'amount',
    'too many elements',
  ],
  ['numeric beyond ±5.0e9', { amount: [{ numeric: ['=', 6e9] }] }, 'amount', 'between -5.0e9 and 5.0e9'],
  ['exists with a string', { a: [{ exists: 'true' }] }, 'a', 'exists takes true or false'],
  ['cidr without prefix length', { ip: [{ cidr: '10.0.0.0' }] }, 'ip', "cidr needs one '/'"],
  ['cidr with a too long IPv4 prefix', { ip: [{ cidr: '10.0.0.0/33' }] }, 'ip', 'from 0 to 32'],
  ['cidr with a too long IPv6 prefix', { ip: [{ cidr: '2001:db8::/129' }] }, 'ip', 'from 0 to 128'],
  [
    'cidr with a bad address',
    { ip: [{ cidr: '300.0.0.0/8' }] },
    'ip',
    '"300.0.0.0" is not an IPv4 or IPv6 address',
  ],
  ['cidr with a hostname', { ip: [{ cidr: 'example.com/8' }] }, 'ip', 'is not an IPv4 or IPv6 address'],
  ['cidr with a number', { ip: [{ cidr: 10 }] }, 'ip', 'cidr needs a string'],
  [
    'wildcard with consecutive stars',
    { f: [{ wildcard: 'dir/**.png' }] },
    'f',
    "consecutive '*' wildcards at position 5",
  ],
  [
    'wildcard escaping another character',
    { f: [{ wildcard: 'a\\b' }] },
    'f',
    "a backslash may only escape '*' or '\\'",
  ],
  ['wildcard ending with a backslash', { f: [{ wildcard: 'a\\' }] }, 'f', 'a backslash may only escape'],
  ['wildcard with a number', { f: [{ wildcard: 5 }] }, 'f', 'wildcard needs a string'],
  [
    'anything-but null',
    { s: [{ 'anything-but': null }] },
    's',
    'anything-but takes a string, a number, a list of either',
  ],
  ['anything-but true', { s: [{ 'anything-but': true }] }, 's', 'anything-but takes a string'],
  [
    'anything-but with an empty list',
    { s: [{ 'anything-but': [] }] },
    's',
    'anything-but needs at least one value',
  ],
  [
    'anything-but mixing strings and numbers',
    { s: [{ 'anything-but': [1, 'a'] }] },
    's',
    'all strings or all numbers',
  ],
  [
    'anything-but with an unsupported operator',
    { s: [{ 'anything-but': { numeric: ['>', 1] } }] },
    's',
    'anything-but takes {"prefix"|"suffix"|"equals-ignore-case"|"wildcard": ...}',
  ],
  [
    'anything-but with an empty prefix',
    { s: [{ 'anything-but': { prefix: '' } }] },
    's',
    'anything-but prefix cannot be empty',
  ],
  [
    'anything-but suffix with a number',
    { s: [{ 'anything-but': { suffix: [1] } }] },
    's',
    'anything-but suffix needs strings',
  ],
  [
    'anything-but with an invalid wildcard',
    { s: [{ 'anything-but': { wildcard: ['*/lib/*', 'a**'] } }] },
    's',
    'anything-but wildcard "a**": consecutive \'*\'',
  ],
  ['anything-but number out of range', { s: [{ 'anything-but': 1e10 }] }, 's', 'between -5.0e9 and 5.0e9'],
  ['$or that is not an array', { $or: { a: [1] } }, '$or', '$or needs an array of at least two patterns'],
  ['$or with one alternative', { $or: [{ a: [1] }] }, '$or', 'at least two patterns'],
  [
    '$or with a non-object alternative',
    { $or: [{ a: [1] }, ['b']] },
    '$or.1',
    'each $or alternative must be a pattern object',
  ],
  [
    'a matcher keyword as field name inside $or',
    { $or: [{ numeric: [1] }, { a: [1] }] },
    '$or.0.numeric',
    "'numeric' is a matcher keyword",
  ],
  [
    'a problem inside a nested $or',
    { detail: { $or: [{ a: [1] }, { b: 'x' }] } },
    'detail.$or.1.b',
    'values to match must be in an array',
  ],
];

describe('validateEventPattern', () => {
  it.each(refused)('refuses %s', (_what, pattern, path, message) => {
    const result = validateEventPattern(pattern);
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors).toContainEqual({
      path,
      message: expect.stringContaining(message),
    });
  });

  it('reports every problem of a pattern at once', () => {
    const result = validateEventPattern({
      source: 'aws.ec2',
      detail: { amount: [{ numeric: [] }], state: [] },
    });
    expect(result.ok ? [] : result.errors.map((error) => error.path)).toEqual([
      'source',
      'detail.amount',
      'detail.state',
    ]);
  });

  it('renders issues as "path: message" lines for users', () => {
    const result = validateEventPattern({ detail: { amount: [{ numeric: [] }] } });
    expect(formatIssues(result.ok ? [] : result.errors)).toBe(
      `detail.amount: numeric matcher needs an operator such as '>', as in [">", 0, "<=", 5]; got []`,
    );
  });

  it.each([
    [
      'every documented matcher',
      {
        a: [
          { prefix: 'x' },
          { suffix: { 'equals-ignore-case': 'y' } },
          { wildcard: 'a\\**' },
          { cidr: '::/0' },
          { exists: true },
          { numeric: ['>=', -5e9, '<', 5e9] },
        ],
      },
    ],
    [
      'anything-but lists of prefixes and wildcards',
      {
        a: [
          { 'anything-but': { prefix: ['init', 'error'] } },
          { 'anything-but': { wildcard: ['*/bin/*.jar', '*/bin/*.class'] } },
        ],
      },
    ],
    ['exact values of every JSON type', { a: ['x', 1, 1.5, true, false, null, ''] }],
    ['"prefix" as a plain field name outside $or', { detail: { prefix: ['x'] } }],
    ['nested $or', { $or: [{ a: [1] }, { b: [2], $or: [{ c: [3] }, { d: [4] }] }] }],
  ])('accepts %s', (_what, pattern) => {
    expect(validateEventPattern(pattern)).toEqual({ ok: true });
    expect(isEventPattern(pattern)).toBe(true);
  });
});

describe('EventPatternSchema', () => {
  it('accepts a valid pattern unchanged', () => {
    const pattern = { source: ['aws.ec2'], detail: { state: [{ 'anything-but': 'initializing' }] } };
    expect(EventPatternSchema.parse(pattern)).toEqual(pattern);
  });

  it('reports issues with their path segments and the same messages', () => {
    const result = EventPatternSchema.safeParse({
      detail: { $or: [{ a: [1] }, { b: [{ numeric: ['>', 'x'] }] }] },
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({
        path: ['detail', '$or', 1, 'b'],
        message: `numeric: '>' must be followed by a number, got "x"`,
      }),
    ]);
  });
});

describe('compileEventPattern', () => {
  it('throws an EventPatternError listing the problems of an invalid pattern', () => {
    expect(() => compileEventPattern({ source: 'aws.ec2' })).toThrowError(EventPatternError);
    try {
      compileEventPattern({ source: 'aws.ec2' });
    } catch (error) {
      expect((error as EventPatternError).issues).toEqual([
        { path: 'source', message: 'values to match must be in an array, as in "source": ["aws.ec2"]' },
      ]);
      expect((error as Error).name).toBe('EventPatternError');
    }
  });
});
