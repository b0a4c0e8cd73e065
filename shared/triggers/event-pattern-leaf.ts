/** Turns one validated leaf array of a pattern into a predicate over event leaf values. */
import type { AnythingButOperand, PatternValue } from './event-pattern-types.ts';
import { isInCidr, parseCidr } from './ip-address.ts';
import { matchesWildcard, parseWildcard } from './wildcard.ts';

type Leaf = string | number | boolean | null;
type Test = (value: Leaf) => boolean;

/** A compiled leaf array: values pass `test`; `matchesAbsent` when it holds `{ "exists": false }`. */
export type LeafCondition = { test: Test; matchesAbsent: boolean };

const fold = (text: string): string => text.toLowerCase();

function wildcardTest(pattern: string): (text: string) => boolean {
  const parsed = parseWildcard(pattern);
  if (!parsed.ok) throw new Error(parsed.message); // unreachable for validated patterns
  return (text) => matchesWildcard(parsed.parts, text);
}

function stringTest(kind: string, operand: string): (text: string) => boolean {
  switch (kind) {
    case 'prefix':
      return (text) => text.startsWith(operand);
    case 'suffix':
      return (text) => text.endsWith(operand);
    case 'equals-ignore-case':
      return (text) => fold(text) === fold(operand);
    case 'wildcard':
      return wildcardTest(operand);
    default:
      throw new Error(`unexpected string matcher ${kind}`);
  }
}

function anythingBut(operand: AnythingButOperand): Test {
  if (typeof operand === 'string' || typeof operand === 'number')
    return anythingBut([operand] as string[] | number[]);
  if (Array.isArray(operand)) {
    const excluded = new Set<string | number>(operand);
    // Only a value of the excluded type can be excluded; any other present value passes.
    return (value) => !((typeof value === 'string' || typeof value === 'number') && excluded.has(value));
  }
  const [kind, inner] = Object.entries(operand)[0] as [string, string | string[]];
  const excluded = (Array.isArray(inner) ? inner : [inner]).map((text) => {
    if (kind === 'prefix') return (value: string) => value.startsWith(text);
    if (kind === 'suffix') return (value: string) => value.endsWith(text);
    if (kind === 'equals-ignore-case') return (value: string) => fold(value) === fold(text);
    return wildcardTest(text);
  });
  return (value) => !(typeof value === 'string' && excluded.some((isExcluded) => isExcluded(value)));
}

function numericTest(terms: (string | number)[]): Test {
  const checks: ((n: number) => boolean)[] = [];
  for (let i = 0; i + 1 < terms.length; i += 2) {
    const bound = terms[i + 1] as number;
    switch (terms[i]) {
      case '=':
        checks.push((n) => n === bound);
        break;
      case '>':
        checks.push((n) => n > bound);
        break;
      case '>=':
        checks.push((n) => n >= bound);
        break;
      case '<':
        checks.push((n) => n < bound);
        break;
      default:
        checks.push((n) => n <= bound);
    }
  }
  return (value) => typeof value === 'number' && checks.every((check) => check(value));
}

function matcherTest(matcher: Record<string, unknown>): Test | 'absent' {
  const [kind, operand] = Object.entries(matcher)[0] as [string, unknown];
  switch (kind) {
    case 'exists':
      return operand === true ? () => true : 'absent';
    case 'numeric':
      return numericTest(operand as (string | number)[]);
    case 'anything-but':
      return anythingBut(operand as AnythingButOperand);
    case 'cidr': {
      const parsed = parseCidr(operand as string);
      if (!parsed.ok) throw new Error(parsed.message); // unreachable for validated patterns
      return (value) => typeof value === 'string' && isInCidr(parsed.block, value);
    }
    default: {
      // prefix / suffix accept { "equals-ignore-case": "..." } for a case-insensitive comparison.
      if (typeof operand === 'object' && operand !== null) {
        const text = fold((operand as { 'equals-ignore-case': string })['equals-ignore-case']);
        const test = stringTest(kind, text);
        return (value) => typeof value === 'string' && test(fold(value));
      }
      const test = stringTest(kind, operand as string);
      return (value) => typeof value === 'string' && test(value);
    }
  }
}

/** Compiles a validated leaf array; its elements are alternatives (OR). */
export function compileLeaf(values: readonly PatternValue[]): LeafCondition {
  const tests: Test[] = [];
  let matchesAbsent = false;
  for (const value of values) {
    if (typeof value === 'object' && value !== null) {
      const test = matcherTest(value);
      if (test === 'absent') matchesAbsent = true;
      else tests.push(test);
    } else {
      // Exact match, type-strict: "5" never equals 5, "" never equals null. Numbers compare numerically.
      tests.push((leaf) => leaf === value);
    }
  }
  return { test: (leaf) => tests.some((test) => test(leaf)), matchesAbsent };
}
