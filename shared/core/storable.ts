/**
 * What DynamoDB (and the document client's marshaller) can store, checked before anything is written, so an
 * unstorable value is a 400 naming the field instead of a 500 from the SDK: nesting depth, numbers the
 * marshaller refuses or DynamoDB cannot represent, empty or prototype-polluting field names,
 * lone UTF-16 surrogates, and item size. The walk is iterative, so no input can overflow the stack.
 */

import { type FieldError, formatPath } from '../workflow-file/errors.ts';
import type * as z from '../zod.ts';
import { valueBytes } from './item-size.ts';

/**
 * A run's input, as JSON in UTF-8 bytes, indented as the transcript shows it: it is stored on the run and in its
 * first transcript message. A delegated job's prompt is its run's input, so it has the same cap.
 */
export const RUN_INPUT_MAX_BYTES = 256 * 1024;
/** DynamoDB allows 32 levels of nesting in an item; values sit one or two levels down, so they get fewer. */
export const MAX_VALUE_DEPTH = 24;
/** DynamoDB's smallest positive number magnitude. */
const MIN_NUMBER_MAGNITUDE = 1e-130;
const MAX_ISSUES = 20;
/** DynamoDB limits attribute names (nested map keys included) to 64 KB; far less is plenty. */
const MAX_FIELD_NAME_CHARS = 1024;
/** With the `u` flag a valid surrogate pair is one code point; only a lone surrogate matches. */
const LONE_SURROGATE = /\p{Cs}/u;
const wellFormed = (text: string) => !LONE_SURROGATE.test(text);

export type StorableLimits = {
  /** Containers (objects, arrays) allowed on any path, the value itself included. */
  maxDepth: number;
  /** Limit on the JSON size in UTF-8 bytes. */
  maxBytes?: number;
  /** Measure the size as indented JSON (how run input appears in the transcript). */
  indented?: boolean;
  /**
   * Limit on the size DynamoDB counts when the value is stored as an attribute (core/item-size.ts `valueBytes`:
   * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html). It can pass
   * the JSON size: each list element and map entry costs a byte of its own, and a number up to 21 bytes however
   * short its JSON, so `[1,1,…]` is 2 bytes an element as JSON and 3 or more as stored.
   */
  maxStoredBytes?: number;
};

type Frame = { value: unknown; path: PropertyKey[]; depth: number };

/** A problem located by its raw path (zod's form). */
export type StorableProblem = { path: PropertyKey[]; message: string };

/** The problems that keep `value` from being stored, as field errors (empty when storable). */
export const storableIssues = (
  value: unknown,
  limits: StorableLimits,
  at: PropertyKey[] = [],
): FieldError[] =>
  storableProblems(value, limits, at).map((problem) => ({
    path: formatPath(problem.path),
    message: problem.message,
  }));

/** The problems that keep `value` from being stored, each located by its path (empty when storable). */
export function storableProblems(
  value: unknown,
  limits: StorableLimits,
  at: PropertyKey[] = [],
): StorableProblem[] {
  const issues: StorableProblem[] = [];
  const add = (path: PropertyKey[], message: string) => {
    if (issues.length < MAX_ISSUES) issues.push({ path, message });
  };
  const stack: Frame[] = [{ value, path: at, depth: 0 }];
  let tooDeep = false;
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) add(path, 'must be a finite number');
      else if (Math.abs(current) > Number.MAX_SAFE_INTEGER)
        add(path, `is too large to store exactly (at most ${Number.MAX_SAFE_INTEGER} in magnitude)`);
      else if (current !== 0 && Math.abs(current) < MIN_NUMBER_MAGNITUDE)
        add(path, 'is too small to store (the smallest magnitude is 1e-130)');
    } else if (typeof current === 'string') {
      if (!wellFormed(current)) add(path, 'must be valid Unicode text (it contains a lone surrogate)');
    } else if (typeof current === 'bigint' || typeof current === 'function' || typeof current === 'symbol') {
      add(path, 'is not a JSON value');
    } else if (current !== null && typeof current === 'object') {
      if (depth >= limits.maxDepth) {
        add(path, `is nested too deeply (at most ${limits.maxDepth} levels of objects and lists)`);
        tooDeep = true;
        continue;
      }
      if (Array.isArray(current)) {
        for (let index = current.length - 1; index >= 0; index--)
          stack.push({ value: current[index], path: [...path, index], depth: depth + 1 });
      } else {
        for (const [key, child] of Object.entries(current)) {
          if (key === '') add(path, 'has an empty field name, which cannot be stored');
          else if (key === '__proto__') add([...path, key], "'__proto__' is not allowed as a field name");
          // A `constructor` field is stored as it is (shared/store/own-constructor-keys.ts).
          else if (!wellFormed(key)) add(path, 'has a field name that is not valid Unicode text');
          else if (key.length > MAX_FIELD_NAME_CHARS)
            add(path, `has a field name longer than ${MAX_FIELD_NAME_CHARS} characters`);
          stack.push({ value: child, path: [...path, key], depth: depth + 1 });
        }
      }
    }
  }
  if (issues.length === 0 && !tooDeep && limits.maxBytes !== undefined) {
    const bytes = Buffer.byteLength(
      JSON.stringify(value, null, limits.indented ? 2 : undefined) ?? '',
      'utf8',
    );
    if (bytes > limits.maxBytes) {
      add(at, `is too large to store: ${bytes} bytes as JSON, the limit is ${limits.maxBytes}`);
    }
  }
  if (issues.length === 0 && !tooDeep && limits.maxStoredBytes !== undefined) {
    const bytes = valueBytes(value);
    if (bytes > limits.maxStoredBytes)
      add(largestField(value, at), storedTooLarge(bytes, limits.maxStoredBytes));
  }
  return issues;
}

const storedTooLarge = (bytes: number, limit: number) =>
  `is too large to store: ${bytes} bytes as DynamoDB counts them (each list element and map entry 1 byte more, ` +
  `each number up to 21 bytes), the limit is ${limit}`;

/** Where to point a stored-size problem: the largest field of an object (what to shorten), else the value. */
function largestField(value: unknown, at: PropertyKey[]): PropertyKey[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return at;
  let largest: { key: string; bytes: number } | undefined;
  for (const [key, child] of Object.entries(value)) {
    const bytes = valueBytes(child);
    if (!largest || bytes > largest.bytes) largest = { key, bytes };
  }
  return largest ? [...at, largest.key] : at;
}

/** A zod refinement adding each problem of the value at its path (for `.superRefine` on a request schema). */
export function refineStorable(limits: StorableLimits, at: PropertyKey[] = []) {
  return (value: unknown, ctx: z.core.$RefinementCtx): void => {
    for (const problem of storableProblems(value, limits, at))
      ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
  };
}

/** Depth of the deepest container path, counted without recursion and stopping once `limit` is passed. */
export function exceedsDepth(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}
