import { describe, expect, it } from 'vitest';
import { inexactNumber } from '../../shared/core/inexact-number.ts';

const MAX = Number.MAX_SAFE_INTEGER;

describe('inexactNumber', () => {
  it.each([
    ['a safe integer', { id: MAX }],
    ['the most negative safe integer', { id: -MAX }],
    ['fractions, zero and small magnitudes', { price: 19.99, rate: 0.1, zero: -0, tiny: 1e-300 }],
    ['a number as a string', { id: '12345678901234567890' }],
    ['no numbers', { text: 'x', flags: [true, null], nested: { list: [] } }],
  ])('finds nothing in %s', (_case, input) => {
    expect(inexactNumber(input)).toBeUndefined();
  });

  it.each([
    ['2^53, the first integer past MAX_SAFE_INTEGER', { id: 2 ** 53 }, 'input.id', 2 ** 53],
    ['a negative one', { id: -(2 ** 53) }, 'input.id', -(2 ** 53)],
    // What the SDK's JSON.parse makes of the digits the model wrote.
    ['a rounded id', JSON.parse('{"id":12345678901234567890}'), 'input.id', 12345678901234567000],
    // Past 2^53 every double is an integer: 1e300 may stand for a 301-digit id and is refused as one.
    ['1e300', { big: 1e300 }, 'input.big', 1e300],
    // JSON.parse('1e400') is Infinity, which JSON.stringify would send as null.
    ['a number too large for a double', { big: Number.POSITIVE_INFINITY }, 'input.big', Infinity],
    ['a top-level number', 2 ** 60, 'input', 2 ** 60],
  ])('finds %s', (_case, input, path, read) => {
    expect(inexactNumber(input)).toEqual({ path, read });
  });

  it('names the field by its path, nested objects and arrays included', () => {
    expect(inexactNumber({ account: { id: 2 ** 64 } })).toEqual({ path: 'input.account.id', read: 2 ** 64 });
    expect(inexactNumber({ ids: [1, 2, 2 ** 64] })).toEqual({ path: 'input.ids[2]', read: 2 ** 64 });
    expect(inexactNumber([{ orders: [{ id: 5 }, { id: -(2 ** 60) }] }], ['args'])).toEqual({
      path: 'args[0].orders[1].id',
      read: -(2 ** 60),
    });
  });

  it('answers the first in document order', () => {
    const input = { a: [1, { b: 2 ** 60 }], c: 2 ** 61 };
    expect(inexactNumber(input)?.path).toBe('input.a[1].b');
  });

  it('walks any nesting without overflowing the stack', () => {
    let deep: unknown = [2 ** 60];
    for (let level = 0; level < 100_000; level++) deep = { d: deep };
    expect(inexactNumber(deep)?.read).toBe(2 ** 60);
  });
});
