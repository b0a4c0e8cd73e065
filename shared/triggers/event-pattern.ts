/**
 * EventBridge event pattern matching for the local stack. A pattern is expanded into alternatives (one per
 * combination of `$or` branches); each alternative is a list of leaf conditions on flattened field paths (names
 * joined with dots, see event-flatten.ts), all of which must hold (AND), using values that come from the same
 * element of any array of objects they share.
 *
 * Like Event Ruler (EventBridge's matcher, https://github.com/aws/event-ruler, `ACFinder`), conditions are
 * checked in the order of their flattened paths, and `{"exists": false}` holds when no value of the field comes
 * from the array elements the conditions before it have settled on. So under an array of objects absence is
 * judged per element, but only against fields whose paths sort before the absent one.
 */
import { EventPatternError } from './errors.ts';
import {
  type FlatEvent,
  type FlatLeaf,
  flattenEvent,
  isConsistent,
  mergeMembership,
  pathKey,
} from './event-flatten.ts';
import { compileLeaf, type LeafCondition } from './event-pattern-leaf.ts';
import type { EventPattern, PatternValue } from './event-pattern-types.ts';
import { validateEventPattern } from './event-pattern-validate.ts';

type Condition = LeafCondition & { path: string };

/** A compiled pattern: call it with an event (a parsed JSON object) to test for a match. */
export type EventMatcher = (event: unknown) => boolean;

function product(left: Condition[][], right: Condition[][]): Condition[][] {
  return left.flatMap((a) => right.map((b) => [...a, ...b]));
}

function expand(pattern: EventPattern, at: string[]): Condition[][] {
  let alternatives: Condition[][] = [[]];
  for (const [key, value] of Object.entries(pattern)) {
    if (key === '$or') {
      const branches = (value as EventPattern[]).flatMap((branch) => expand(branch, at));
      alternatives = product(alternatives, branches);
    } else if (Array.isArray(value)) {
      const condition = { ...compileLeaf(value as PatternValue[]), path: pathKey([...at, key]) };
      for (const alternative of alternatives) alternative.push(condition);
    } else {
      alternatives = product(alternatives, expand(value, [...at, key]));
    }
  }
  // Event Ruler walks a rule's fields sorted by name (Java String order: UTF-16 code units, as here).
  for (const alternative of alternatives)
    alternative.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return alternatives;
}

function satisfies(
  conditions: readonly Condition[],
  event: FlatEvent,
  index: number,
  membership: FlatLeaf['membership'],
): boolean {
  const condition = conditions[index];
  if (condition === undefined) return true;
  // Only values from the array elements chosen so far count, for presence as for absence.
  const leaves = (event.get(condition.path) ?? []).filter((leaf) =>
    isConsistent(membership, leaf.membership),
  );
  if (leaves.length === 0 && condition.matchesAbsent && satisfies(conditions, event, index + 1, membership))
    return true;
  for (const leaf of leaves) {
    if (!condition.test(leaf.value)) continue;
    if (satisfies(conditions, event, index + 1, mergeMembership(membership, leaf.membership))) return true;
  }
  return false;
}

/** Validates a pattern once and returns a fast matcher; throws {@link EventPatternError} when it is invalid. */
export function compileEventPattern(pattern: unknown): EventMatcher {
  const validation = validateEventPattern(pattern);
  if (!validation.ok) throw new EventPatternError(validation.errors);
  const alternatives = expand(pattern as EventPattern, []);
  return (event) => {
    const flat = flattenEvent(event);
    return alternatives.some((conditions) => satisfies(conditions, flat, 0, new Map()));
  };
}

/** True when the event matches the pattern with EventBridge semantics; throws {@link EventPatternError} for an invalid pattern. */
export function matchesEventPattern(pattern: unknown, event: unknown): boolean {
  return compileEventPattern(pattern)(event);
}
