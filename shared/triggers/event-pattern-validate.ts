/** Structural validation of EventBridge event patterns, and the zod schema built on it. */
import * as z from '../zod.ts';
import type { TriggerIssue } from './errors.ts';
import { isPlainObject, validateMatcher } from './event-pattern-matcher-validate.ts';
import { duplicateFieldIssues, fieldNameIssue } from './event-pattern-paths.ts';
import { type EventPattern, RESERVED_IN_OR } from './event-pattern-types.ts';

/** The result of validating a pattern: every problem at once, each with a readable path. */
export type PatternValidation = { ok: true } | { ok: false; errors: TriggerIssue[] };

type Segment = string | number;
type Issue = { segments: Segment[]; message: string };

/**
 * Dotted path such as `detail.$or.1.state`; the root is the empty string. Dots (not brackets) so that callers
 * can split a path back into segments.
 */
function pathOf(segments: readonly Segment[]): string {
  return segments.join('.');
}

function collect(pattern: unknown): Issue[] {
  const issues: Issue[] = [];
  if (!isPlainObject(pattern)) {
    issues.push({
      segments: [],
      message: `an event pattern must be a JSON object such as {"source": ["my.app"]}; got ${Array.isArray(pattern) ? 'an array' : (JSON.stringify(pattern) ?? String(pattern))}`,
    });
    return issues;
  }
  validateObject(pattern, [], false, issues);
  // Only a well-formed pattern has fields to compare.
  if (issues.length === 0)
    for (const { at, message } of duplicateFieldIssues(pattern)) issues.push({ segments: at, message });
  return issues;
}

function validateObject(node: Record<string, unknown>, at: Segment[], inOr: boolean, issues: Issue[]): void {
  const entries = Object.entries(node);
  if (entries.length === 0) {
    issues.push({
      segments: at,
      message: 'empty objects are not allowed; give the field at least one condition',
    });
    return;
  }
  for (const [key, value] of entries) {
    const here = [...at, key];
    const nameIssue = key === '$or' ? undefined : fieldNameIssue(key);
    if (key === '$or') {
      validateOr(value, here, issues);
    } else if (nameIssue !== undefined) {
      issues.push({ segments: here, message: nameIssue });
    } else if (inOr && RESERVED_IN_OR.has(key)) {
      issues.push({
        segments: here,
        message: `'${key}' is a matcher keyword and cannot be a field name directly inside $or`,
      });
    } else if (Array.isArray(value)) {
      validateLeafList(value, here, issues);
    } else if (isPlainObject(value)) {
      validateObject(value, here, false, issues);
    } else {
      issues.push({
        segments: here,
        message: `values to match must be in an array, as in "${key}": [${JSON.stringify(value) ?? String(value)}]`,
      });
    }
  }
}

function validateOr(value: unknown, at: Segment[], issues: Issue[]): void {
  if (!Array.isArray(value) || value.length < 2) {
    issues.push({
      segments: at,
      message: '$or needs an array of at least two patterns, as in [{"a": [1]}, {"b": [2]}]',
    });
    return;
  }
  value.forEach((alternative, index) => {
    if (isPlainObject(alternative)) validateObject(alternative, [...at, index], true, issues);
    else issues.push({ segments: [...at, index], message: 'each $or alternative must be a pattern object' });
  });
}

function validateLeafList(values: unknown[], at: Segment[], issues: Issue[]): void {
  if (values.length === 0) {
    issues.push({
      segments: at,
      message: 'an empty array matches nothing; list at least one value or matcher',
    });
    return;
  }
  values.forEach((value, index) => {
    const label = values.length > 1 ? `item ${index + 1}: ` : '';
    const report = (message: string) => issues.push({ segments: at, message: `${label}${message}` });
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) report(`${value} is not a JSON number`);
    } else if (Array.isArray(value)) {
      report('nested arrays are not allowed; put all alternatives in one array');
    } else if (isPlainObject(value)) {
      validateMatcher(value, report);
    } else {
      report(
        `${typeof value} values cannot appear in a pattern; use strings, numbers, true, false, null or a matcher`,
      );
    }
  });
}

/** Validates a pattern against EventBridge's documented rules; returns every problem with its path. */
export function validateEventPattern(pattern: unknown): PatternValidation {
  const issues = collect(pattern);
  if (issues.length === 0) return { ok: true };
  return {
    ok: false,
    errors: issues.map((issue) => ({ path: pathOf(issue.segments), message: issue.message })),
  };
}

/** Type guard form of {@link validateEventPattern}. */
export function isEventPattern(pattern: unknown): pattern is EventPattern {
  return collect(pattern).length === 0;
}

/** Zod schema for an EventBridge event pattern; issues carry the same messages as {@link validateEventPattern}. */
export const EventPatternSchema = z
  .custom<EventPattern>(() => true)
  .check(
    z.superRefine((pattern, ctx) => {
      for (const issue of collect(pattern))
        ctx.addIssue({ code: 'custom', message: issue.message, path: issue.segments });
    }),
  );
