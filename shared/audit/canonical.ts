import { createHash, hash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { CanonicalJsonError } from './errors.ts';

/** RFC 8785 canonical JSON of a value; throws `CanonicalJsonError` when the value has no JSON form. */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = plainCanonical(value, 0) ?? canonicalize(value);
  } catch (cause) {
    throw new CanonicalJsonError(`value is not canonical-JSON serializable: ${(cause as Error).message}`, {
      cause,
    });
  }
  // canonicalize returns undefined for undefined, functions and symbols at the top level.
  if (text === undefined) throw new CanonicalJsonError('value has no JSON representation');
  return text;
}

/** Deeper than this, the package serializes the value (and reports a cycle its way). */
const MAX_PLAIN_DEPTH = 64;

/**
 * The canonical JSON of plain data, the text `canonicalize` gives for it, or `undefined` for anything else (the
 * caller then asks the package). Sealing serializes every audit entry, argument and content it hashes, so this is
 * on every commit's path; the package spends most of its time on a cycle-tracking Set, sorted-key template
 * strings and a check for lone surrogates that no string of plain data needs twice. Plain data: null, booleans,
 * finite numbers, strings without a lone surrogate, dense arrays, and objects whose prototype is
 * `Object.prototype` or null, none with a `toJSON`; fields that are `undefined` are left out (as the package
 * does). Anything else, at any depth (a NaN, a Date, a Map, a function, a symbol, a hole, a lone surrogate, a
 * nesting deeper than `MAX_PLAIN_DEPTH`), returns `undefined`, so the package decides what it gives or throws.
 * test/audit/canonical.test.ts compares the two on generated values.
 */
function plainCanonical(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return hasLoneSurrogate(value) ? undefined : JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return 'null';
  if (depth >= MAX_PLAIN_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return undefined;
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      if (!(index in value)) return undefined;
      const element = value[index];
      const part = element === undefined ? 'null' : plainCanonical(element, depth + 1);
      if (part === undefined) return undefined;
      text += index === 0 ? part : `,${part}`;
    }
    return `${text}]`;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const record = value as Record<string, unknown>;
  let text = '{';
  let first = true;
  for (const key of Object.keys(record).sort()) {
    const element = record[key];
    if (element === undefined) continue;
    if (hasLoneSurrogate(key)) return undefined;
    const part = plainCanonical(element, depth + 1);
    if (part === undefined) return undefined;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${part}`;
    first = false;
  }
  return `${text}}`;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Whether `text` holds a UTF-16 surrogate without its other half (RFC 8785 refuses them; so does the package). */
function hasLoneSurrogate(text: string): boolean {
  if (!SURROGATE.test(text)) return false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0xd800 || code > 0xdfff) continue;
    if (!isHigh(code) || !isLow(text.charCodeAt(index + 1))) return true;
    index++;
  }
  return false;
}

/** Lower-case hex SHA-256 of the UTF-8 encoding of the given parts, concatenated. */
export function sha256Hex(...parts: string[]): string {
  // One call over the joined text when that is the same bytes: not if the text so far ends with a high
  // surrogate and the next part starts with a low one (joined, they are one character; apart, each is U+FFFD).
  let text = '';
  for (const part of parts) {
    if (isHigh(text.charCodeAt(text.length - 1)) && isLow(part.charCodeAt(0))) return sha256Of(parts);
    text += part;
  }
  return hash('sha256', text, 'hex');
}

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

function sha256Of(parts: readonly string[]): string {
  const digest = createHash('sha256');
  for (const part of parts) digest.update(part, 'utf8');
  return digest.digest('hex');
}
