/**
 * `=` and `!=` as JSONata answers them (jsonata-js 2.2, `isDeepEqual`: arrays item by item, objects by the same
 * own keys with equal values), for the bounded comparison of expression-bounds.ts. JSONata compares inside one
 * evaluation step, where its guardrails do not look: two values an expression built sharing parts
 * (`$b := {"l": $a, "r": $a}`, doubled 40 times) are small in memory but 2^40 nodes to walk. The bounds size
 * each side first, with a walk that stops at the limit, so this walk is bounded by that size.
 */
export function isDeepEqual(lhs: unknown, rhs: unknown): boolean {
  if (lhs === rhs) return true;
  if (typeof lhs !== 'object' || typeof rhs !== 'object' || lhs === null || rhs === null) return false;
  if (Array.isArray(lhs) && Array.isArray(rhs)) {
    return lhs.length === rhs.length && lhs.every((item, index) => isDeepEqual(item, rhs[index]));
  }
  const leftKeys = Object.getOwnPropertyNames(lhs).sort();
  const rightKeys = Object.getOwnPropertyNames(rhs).sort();
  if (leftKeys.length !== rightKeys.length) return false;
  if (leftKeys.some((key, index) => key !== rightKeys[index])) return false;
  return leftKeys.every((key) =>
    isDeepEqual((lhs as Record<string, unknown>)[key], (rhs as Record<string, unknown>)[key]),
  );
}
