/** Types of EventBridge event patterns, as documented in "Creating event patterns" and "Comparison operators". */

/** A JSON scalar, the only kind of value a pattern compares exactly. */
export type JsonPrimitive = string | number | boolean | null;

/** A string, or the case-insensitive form `{ "equals-ignore-case": "..." }` (prefix and suffix accept both). */
export type StringOrIgnoreCase = string | { 'equals-ignore-case': string };

type OneOrMany<T> = T | T[];

/** The operand of `anything-but`. */
export type AnythingButOperand =
  | string
  | number
  | string[]
  | number[]
  | { prefix: OneOrMany<string> }
  | { suffix: OneOrMany<string> }
  | { 'equals-ignore-case': OneOrMany<string> }
  | { wildcard: OneOrMany<string> };

/** A content-filter object inside a leaf array, e.g. `{ "prefix": "us-" }`. */
export type PatternMatcher =
  | { prefix: StringOrIgnoreCase }
  | { suffix: StringOrIgnoreCase }
  | { 'equals-ignore-case': string }
  | { wildcard: string }
  | { 'anything-but': AnythingButOperand }
  | { numeric: (string | number)[] }
  | { exists: boolean }
  | { cidr: string };

/** One element of a leaf array: an exact value or a matcher. */
export type PatternValue = JsonPrimitive | PatternMatcher;

/** An event pattern: fields map to leaf arrays (OR) or nested patterns; `$or` lists alternative patterns. */
export type EventPattern = { [field: string]: PatternValue[] | EventPattern | EventPattern[] };

/** Matcher keys EventBridge documents for event buses. */
export const MATCHER_KEYS = [
  'prefix',
  'suffix',
  'equals-ignore-case',
  'wildcard',
  'anything-but',
  'numeric',
  'exists',
  'cidr',
] as const;

/**
 * Names that cannot be field names directly inside a `$or` alternative: the matcher keys and the
 * keywords Event Ruler (EventBridge's matching engine) reserves there.
 */
export const RESERVED_IN_OR = new Set<string>([...MATCHER_KEYS, 'exactly', '=', '<', '<=', '>', '>=']);

/** EventBridge documents numeric matching for values between -5.0e9 and +5.0e9 inclusive. */
export const NUMERIC_LIMIT = 5e9;
