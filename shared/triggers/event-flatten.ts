/**
 * Flattens an event into leaf values by path, the way EventBridge's matcher (Event Ruler) sees it: objects
 * descend, arrays contribute each element, empty arrays and objects contribute nothing (so such fields count as
 * absent), and every value remembers which element of which array of objects it came from. That membership lets
 * a pattern with several fields under an array of objects match only fields of the same element.
 *
 * A path is its field names joined with dots, and nothing else: a dot inside a field name is a path separator
 * too, so `{"state": {"status": "x"}}` and `{"state.status": "x"}` are the same field, in events and in patterns.
 * Event Ruler's README, "Caveat: Compiled rules and JSON keys with dots"
 * (https://github.com/aws/event-ruler#caveat-compiled-rules-and-json-keys-with-dots).
 */

/** A leaf value with its array membership: array instance id → element index. */
export type FlatLeaf = { value: string | number | boolean | null; membership: ReadonlyMap<number, number> };

/** Leaves keyed by path key (see {@link pathKey}). */
export type FlatEvent = ReadonlyMap<string, readonly FlatLeaf[]>;

/** The flattened name of a path of field names: joined with dots, as Event Ruler joins them. */
export function pathKey(segments: readonly string[]): string {
  return segments.join('.');
}

const NO_MEMBERSHIP: ReadonlyMap<number, number> = new Map();

/** Flattens a parsed JSON event. Non-JSON values (undefined, functions, symbols, bigint) are ignored. */
export function flattenEvent(event: unknown): FlatEvent {
  const leaves = new Map<string, FlatLeaf[]>();
  let arrayCount = 0;

  const add = (segments: string[], value: FlatLeaf['value'], membership: ReadonlyMap<number, number>) => {
    const key = pathKey(segments);
    const list = leaves.get(key);
    if (list === undefined) leaves.set(key, [{ value, membership }]);
    else list.push({ value, membership });
  };

  const walk = (node: unknown, segments: string[], membership: ReadonlyMap<number, number>): void => {
    if (node === null || typeof node === 'string' || typeof node === 'boolean') {
      add(segments, node, membership);
    } else if (typeof node === 'number') {
      if (Number.isFinite(node)) add(segments, node, membership);
    } else if (Array.isArray(node)) {
      const arrayId = arrayCount++;
      node.forEach((element, index) => {
        // Like Event Ruler, only object and array elements carry membership; scalars are plain alternatives.
        if (typeof element === 'object' && element !== null) {
          walk(element, segments, new Map(membership).set(arrayId, index));
        } else {
          walk(element, segments, membership);
        }
      });
    } else if (typeof node === 'object' && node !== undefined) {
      for (const [key, value] of Object.entries(node)) walk(value, [...segments, key], membership);
    }
  };

  walk(event, [], NO_MEMBERSHIP);
  return leaves;
}

/** True when two leaves can come from the same event element: they agree on every array they share. */
export function isConsistent(a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>): boolean {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const [arrayId, index] of small) {
    const other = large.get(arrayId);
    if (other !== undefined && other !== index) return false;
  }
  return true;
}

/** The union of two consistent memberships. */
export function mergeMembership(
  a: ReadonlyMap<number, number>,
  b: ReadonlyMap<number, number>,
): ReadonlyMap<number, number> {
  if (b.size === 0) return a;
  if (a.size === 0) return b;
  return new Map([...a, ...b]);
}
