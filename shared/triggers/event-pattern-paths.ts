/**
 * Where a pattern's leaf arrays are, by flattened field name. EventBridge's matcher (Event Ruler) joins nested
 * names with dots and does not tell `{"a": {"b": [..]}}` from `{"a.b": [..]}` (README, "Caveat: Compiled rules
 * and JSON keys with dots", https://github.com/aws/event-ruler#caveat-compiled-rules-and-json-keys-with-dots).
 * Two leaves of one alternative that flatten to the same name are not both applied: Event Ruler keeps the last in
 * document order (https://github.com/aws/event-ruler/issues/22, "Undocumented duplicate key behaviour"), so one
 * condition would be silently dropped. We refuse such patterns instead, naming both places.
 */
import { isConsistent, pathKey } from './event-flatten.ts';

type Segment = string | number;

/** A leaf array of a pattern: its flattened field name, where it is written, and the `$or` branches it is in. */
export type LeafSite = { path: string; at: Segment[]; branches: ReadonlyMap<number, number> };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every leaf array of a structurally valid pattern. */
export function leafSites(pattern: Record<string, unknown>): LeafSite[] {
  const sites: LeafSite[] = [];
  let orCount = 0;
  const walk = (
    node: Record<string, unknown>,
    names: string[],
    at: Segment[],
    branches: Map<number, number>,
  ) => {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$or' && Array.isArray(value)) {
        const orId = orCount++;
        value.forEach((branch, index) => {
          if (isObject(branch)) walk(branch, names, [...at, key, index], new Map(branches).set(orId, index));
        });
      } else if (Array.isArray(value)) {
        sites.push({ path: pathKey([...names, key]), at: [...at, key], branches });
      } else if (isObject(value)) {
        walk(value, [...names, key], [...at, key], branches);
      }
    }
  };
  walk(pattern, [], [], new Map());
  return sites;
}

/**
 * Leaves that flatten to the name of an earlier leaf they can be ANDed with (that is, not in another branch of
 * a `$or` they share). Linear in the pattern, whatever the number of `$or` combinations.
 */
export function duplicateFieldIssues(pattern: Record<string, unknown>): { at: Segment[]; message: string }[] {
  const byPath = new Map<string, LeafSite[]>();
  for (const site of leafSites(pattern)) byPath.set(site.path, [...(byPath.get(site.path) ?? []), site]);
  const issues: { at: Segment[]; message: string }[] = [];
  for (const [path, sites] of byPath) {
    sites.forEach((site, index) => {
      const earlier = sites.slice(0, index).find((other) => isConsistent(other.branches, site.branches));
      if (earlier === undefined) return;
      issues.push({
        at: site.at,
        message: `names the same field, ${path}, as the one at ${JSON.stringify(earlier.at)}: EventBridge reads a dot in a field name as nesting and would apply only one of them; write the field once`,
      });
    });
  }
  return issues;
}

/** Why a field name cannot be used, or undefined: an empty name, or an empty part between dots. */
export function fieldNameIssue(key: string): string | undefined {
  if (!key.split('.').includes('')) return undefined;
  return key === ''
    ? 'empty field names are not supported'
    : `field name '${key}' has an empty part: EventBridge reads dots in field names as nesting, so a name cannot start or end with a dot or contain '..'`;
}
