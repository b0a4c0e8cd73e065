import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../shared/audit/canonical.ts';
import { CanonicalJsonError } from '../../shared/audit/errors.ts';

/** What the `canonicalize` package gives for `value`: its text, or that it throws. */
function packageAnswer(value: unknown): { text: string | undefined } | { throws: true } {
  try {
    return { text: canonicalize(value) };
  } catch {
    return { throws: true };
  }
}

/** What canonicalJson gives: its text, or that it throws (`undefined` from the package is a throw here). */
function ownAnswer(value: unknown): { text: string | undefined } | { throws: true } {
  try {
    return { text: canonicalJson(value) };
  } catch (error) {
    expect(error).toBeInstanceOf(CanonicalJsonError);
    return { throws: true };
  }
}

const expected = (value: unknown) => {
  const answer = packageAnswer(value);
  return 'text' in answer && answer.text === undefined ? { throws: true as const } : answer;
};

/** Strings with any UTF-16 units: lone surrogates, pairs, escapes. */
const anyString = fc.string({ unit: 'binary' });
const surrogates = fc.constantFrom(
  '\uD800',
  '\uDBFF',
  '\uDC00',
  '\uDFFF',
  '\uD83D\uDE00',
  'a\uD800b',
  '\uDE00\uD83D',
);

/** Values plain data is made of, and the things around it the package treats its own way. */
const oddities = fc.constantFrom<unknown>(
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -0,
  1e21,
  5e-324,
  undefined,
  Symbol('s'),
  () => 1,
  new Date(0),
  new Map([['a', 1]]),
  new Uint8Array([1, 2]),
  Object.create(null),
  Object.assign(Object.create(null), { b: 1, a: [2] }),
  { toJSON: () => ({ z: 1, a: 2 }) },
  // biome-ignore lint/suspicious/noSparseArray: a hole is one of the things compared
  [1, , 3],
  JSON.parse('{"__proto__": {"x": 1}, "constructor": "c"}'),
);

const leaf = fc.oneof(
  fc.jsonValue({ maxDepth: 1 }),
  anyString,
  surrogates,
  oddities,
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(anyString, surrogates, fc.string({ maxLength: 4 })), tie('value'), { maxKeys: 5 }),
  ),
}));

/** A value nested `depth` levels deep (objects and arrays in turn). */
function nested(depth: number): unknown {
  let current: unknown = 'leaf';
  for (let level = 0; level < depth; level++) current = level % 2 ? [current] : { k: current };
  return current;
}

describe('Function: canonicalJson', () => {
  it('gives the text the canonicalize package gives, or throws where it throws, on generated values', () => {
    fc.assert(
      fc.property(value, (generated) => {
        expect(ownAnswer(generated)).toEqual(expected(generated));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['JSON values', fc.jsonValue()],
    ['audit-like records', fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }))],
  ])('agrees with the package on %s', (_name, arbitrary) => {
    fc.assert(
      fc.property(arbitrary, (generated) => {
        expect(ownAnswer(generated)).toEqual(expected(generated));
      }),
      { numRuns: 1000 },
    );
  });

  it.each([10, 63, 64, 65, 200])('agrees with the package on values nested %i levels deep', (depth) => {
    const deep = nested(depth);
    expect(ownAnswer(deep)).toEqual(expected(deep));
  });

  it('refuses a cycle, as the package does', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(() => canonicalJson(cyclic)).toThrow(CanonicalJsonError);
  });

  it('sorts keys by UTF-16 code units and leaves out undefined fields', () => {
    expect(
      canonicalJson({ b: 1, a: undefined, ä: 2, B: [undefined, 'x'], '\uD83D\uDE00': 3, '\uFF01': 4 }),
    ).toBe('{"B":[null,"x"],"b":1,"ä":2,"\uD83D\uDE00":3,"\uFF01":4}');
  });
});

describe('Function: sha256Hex', () => {
  const reference = (parts: string[]) => {
    const hash = createHash('sha256');
    for (const part of parts) hash.update(part, 'utf8');
    return hash.digest('hex');
  };

  it('hashes the parts as UTF-8 one after the other, a surrogate pair split between parts included', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(anyString, surrogates, fc.constant('')), { maxLength: 5 }), (parts) => {
        expect(sha256Hex(...parts)).toBe(reference(parts));
      }),
      { numRuns: 2000 },
    );
    expect(sha256Hex('a\uD83D', '', '\uDE00b')).toBe(reference(['a\uD83D', '', '\uDE00b']));
    expect(sha256Hex('a\uD83D', '', '\uDE00b')).not.toBe(reference(['a\uD83D\uDE00b']));
  });
});
