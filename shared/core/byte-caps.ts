/**
 * Cutting text for caps without breaking a character. UTF-8 byte arithmetic: DynamoDB measures strings in UTF-8
 * bytes, not UTF-16 code units, so a result capped in characters can be three times larger than it looks ('€' is
 * 1 character, 3 bytes). `cutText`: caps counted in UTF-16 units, as `String.prototype.slice` counts them.
 * Pure: nothing is encoded to be measured.
 */

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Bytes of one code point starting at `index` and how many UTF-16 units it spans. */
function codePointAt(text: string, index: number): { bytes: number; units: number } {
  const code = text.charCodeAt(index);
  if (code < 0x80) return { bytes: 1, units: 1 };
  if (code < 0x800) return { bytes: 2, units: 1 };
  if (isHigh(code) && index + 1 < text.length && isLow(text.charCodeAt(index + 1)))
    return { bytes: 4, units: 2 };
  // Other BMP characters, and lone surrogates (encoded as U+FFFD, also 3 bytes).
  return { bytes: 3, units: 1 };
}

/**
 * The UTF-8 length of a string in bytes: one per UTF-16 unit, plus one for U+0080-U+07FF, two for the rest of
 * the BMP (and a lone surrogate, encoded as U+FFFD), two for a surrogate pair (4 bytes for its 2 units).
 * Sized on every write (item-size.ts), several times per turn over the same transcript text, so it is Node's
 * native count, which encodes nothing and counts exactly this (a lone surrogate as U+FFFD's 3 bytes;
 * test/core/utf8-length.test.ts holds it to the rule above): a loop over the units in JavaScript took ten times
 * longer on a tool result's text (issue #16). https://nodejs.org/api/buffer.html#static-method-bufferbytelengthstring-encoding
 */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * The number of UTF-16 units of the longest prefix of `text` whose UTF-8 form is at most `maxBytes`,
 * never ending between the two halves of a surrogate pair.
 */
export function utf8PrefixUnits(text: string, maxBytes: number): number {
  let bytes = 0;
  let index = 0;
  while (index < text.length) {
    const point = codePointAt(text, index);
    if (bytes + point.bytes > maxBytes) break;
    bytes += point.bytes;
    index += point.units;
  }
  return index;
}

/**
 * `text` if it fits in `maxBytes` UTF-8 bytes; otherwise its longest whole-character prefix followed by
 * `marker`, the two together at most `maxBytes`. Well-formed either way: a lone surrogate becomes U+FFFD (the
 * same 3 bytes), as in `cutText`.
 */
export function capUtf8(raw: string, maxBytes: number, marker: string): string {
  const text = raw.toWellFormed();
  if (utf8Length(text) <= maxBytes) return text;
  const room = Math.max(0, maxBytes - utf8Length(marker));
  return `${text.slice(0, utf8PrefixUnits(text, room))}${marker}`;
}

/**
 * At most `maxUnits` UTF-16 units of `text` (what `text.slice(0, maxUnits)` keeps), never ending between the two
 * halves of a surrogate pair, and well-formed: a lone surrogate already in it (a model's or an owner's JSON can
 * carry one as an escape) becomes U+FFFD. Every cut of outside text (an error message, a page body, a reason)
 * goes through it: a lone surrogate cannot be sealed into the audit chain (RFC 8785 refuses it), has no UTF-8
 * form (DynamoDB strings are UTF-8:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes),
 * and the Anthropic API refuses a request carrying one ("The request body is not valid JSON: no low surrogate in
 * string", https://github.com/anthropics/claude-code/issues/1939).
 *
 * @example cutText('ab😀', 3) === 'ab'
 */
export function cutText(text: string, maxUnits: number): string {
  let end = Math.max(0, Math.min(text.length, Math.floor(maxUnits)));
  if (end > 0 && end < text.length && isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end)))
    end -= 1;
  return text.slice(0, end).toWellFormed();
}
