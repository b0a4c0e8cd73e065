/**
 * A lone UTF-16 surrogate in a request body, which the Messages API refuses: JSON can carry one as an escape
 * (`JSON.stringify` writes one as `"\ud83d"`), and the API answers HTTP 400 `invalid_request_error` "The request
 * body is not valid JSON: no low surrogate in string" (https://github.com/anthropics/claude-code/issues/1939).
 */

/** True when a string or a field name anywhere in `value` is not well-formed UTF-16. Iterative: any depth. */
export function hasLoneSurrogate(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'string') {
      if (!current.isWellFormed()) return true;
    } else if (current !== null && typeof current === 'object') {
      for (const [key, child] of Object.entries(current)) {
        if (!key.isWellFormed()) return true;
        stack.push(child);
      }
    }
  }
  return false;
}
