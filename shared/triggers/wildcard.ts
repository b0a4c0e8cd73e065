/**
 * EventBridge wildcard strings: `*` matches any run of characters (including none), `\*` is a literal
 * asterisk, `\\` a literal backslash. Consecutive wildcards and other escapes are refused, as EventBridge does.
 */

export type ParsedWildcard = { ok: true; parts: string[] } | { ok: false; message: string };

/** Splits a wildcard string into the literal parts between its `*` wildcards, or explains why it is invalid. */
export function parseWildcard(pattern: string): ParsedWildcard {
  const parts: string[] = [];
  let literal = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '*') {
      if (pattern[i + 1] === '*') {
        return {
          ok: false,
          message: `consecutive '*' wildcards at position ${i + 1} are not allowed; use a single '*'`,
        };
      }
      parts.push(literal);
      literal = '';
    } else if (char === '\\') {
      const next = pattern[i + 1];
      if (next !== '*' && next !== '\\') {
        return {
          ok: false,
          message: `a backslash may only escape '*' or '\\' (position ${i + 1}); write '\\\\' for a literal backslash`,
        };
      }
      literal += next;
      i++;
    } else {
      literal += char;
    }
  }
  parts.push(literal);
  return { ok: true, parts };
}

/**
 * Tests a string against parsed wildcard parts. Leftmost-first scanning is exact for `*`-only globs and runs
 * in linear time, so a hostile pattern cannot make matching backtrack (no regular expression involved).
 */
export function matchesWildcard(parts: readonly string[], value: string): boolean {
  const first = parts[0] ?? '';
  if (parts.length === 1) return value === first;
  const last = parts[parts.length - 1] ?? '';
  if (!value.startsWith(first)) return false;
  let position = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const middle = parts[i] ?? '';
    const found = value.indexOf(middle, position);
    if (found < 0) return false;
    position = found + middle.length;
  }
  return value.length - last.length >= position && value.endsWith(last);
}
