/**
 * utf8Length sizes every item a turn writes (core/item-size.ts) and caps outside text: it must count what
 * DynamoDB and the APIs count, the UTF-8 form, a lone surrogate as the U+FFFD it is encoded as.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Length } from '../../shared/core/byte-caps.ts';

/** The rule, unit by unit: 1 byte below U+0080, 2 below U+0800, 4 for a surrogate pair, 3 otherwise. */
function byRule(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const next = text.charCodeAt(index + 1);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

// Any UTF-16 unit (lone and paired surrogates included), and whole code points of every length.
const unit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  fc.constantFrom('a', 'é', '€', '😀', '\ud800', '\udfff', '\udbff\udc00'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);

describe('utf8Length', () => {
  it('counts the bytes of the UTF-8 form of any string, a lone surrogate as 3', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (text) => {
        // Act
        const bytes = utf8Length(text);
        // Assess
        expect(bytes).toBe(byRule(text));
        expect(bytes).toBe(new TextEncoder().encode(text).length);
      }),
      { numRuns: 5000 },
    );
  });

  it.each([
    ['', 0],
    ['abc', 3],
    ['é', 2],
    ['€', 3],
    ['😀', 4],
    ['\ud800', 3],
    ['\udc00\ud800', 6],
    ['x\ud83d', 4],
    ['x'.repeat(50_000), 50_000],
  ])('counts %j as %i bytes', (text, bytes) => {
    // Act and assess
    expect(utf8Length(text)).toBe(bytes);
  });
});
