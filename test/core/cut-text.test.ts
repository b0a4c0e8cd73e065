/**
 * `cutText`: the one cut of outside text by UTF-16 units. It never leaves half of a surrogate pair, and it
 * answers a lone surrogate already in the text with U+FFFD, so what it returns can be sealed (RFC 8785), stored
 * (UTF-8) and sent to the model.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../shared/audit/index.ts';
import { cutText } from '../../shared/core/byte-caps.ts';

const EMOJI = '\u{1F600}'; // two UTF-16 units

describe('Function: cutText', () => {
  it.each([
    ['short text, kept whole', 'abc', 10, 'abc'],
    ['a cut between characters', 'abcdef', 3, 'abc'],
    ['a cut that would split a pair, one unit earlier', `ab${EMOJI}cd`, 3, 'ab'],
    ['a cut just after a pair, the pair kept', `ab${EMOJI}cd`, 4, `ab${EMOJI}`],
    ['a cut just before a pair', `ab${EMOJI}cd`, 2, 'ab'],
    ['a lone high surrogate already in the text', 'ab\ud83dcd', 10, 'ab\ufffdcd'],
    ['a lone low surrogate already in the text', 'ab\ude00cd', 10, 'ab\ufffdcd'],
    ['a lone high surrogate kept by the cut', 'ab\ud83dcd', 3, 'ab\ufffd'],
    ['nothing at zero', `${EMOJI}`, 0, ''],
    ['nothing at one when the text starts with a pair', `${EMOJI}x`, 1, ''],
    ['nothing at a negative cap', 'abc', -5, ''],
  ])('%s', (_, text, max, expected) => {
    expect(cutText(text, max)).toBe(expected);
  });

  it('keeps at most maxUnits units, and its result is always sealable, whatever the cut', () => {
    const text = `${'a'.repeat(5)}${EMOJI.repeat(5)}\ud83d${'é'.repeat(3)}\ude00`;
    for (let max = 0; max <= text.length + 1; max++) {
      const cut = cutText(text, max);
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(cut.isWellFormed()).toBe(true);
      expect(() => canonicalJson({ cut })).not.toThrow();
    }
  });
});
