/** Validation errors in words a user understands: one per offending field path, never a stack trace. */
import { cutText } from '../core/byte-caps.ts';
import type * as z from '../zod.ts';

export type FieldError = { path: string; message: string };

/** Formats a zod path as `budget.maxUsdPerRun` / `allowedActions[2]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out === '' ? '(root)' : out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined
        ? 'is required'
        : `must be ${article(issue.expected)}, not ${typeName(issue.input)}`;
    case 'too_small':
      if (issue.origin === 'string')
        return issue.minimum === 1 ? 'must not be empty' : `must be at least ${issue.minimum} characters`;
      if (issue.origin === 'array') return `must have at least ${issue.minimum} item(s)`;
      return `must be ${issue.inclusive ? 'at least' : 'greater than'} ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string') return `is too long: at most ${issue.maximum} characters`;
      if (issue.origin === 'array') return `must have at most ${issue.maximum} item(s)`;
      return `must be ${issue.inclusive ? 'at most' : 'less than'} ${issue.maximum}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `'${key}'`).join(', ')}`;
    case 'invalid_union':
      return 'does not match any accepted form';
    default:
      return issue.message;
  }
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${cutText(JSON.stringify(value) ?? '', 40)}`;
}

/** zod's own default messages; anything else was written for this schema and is kept as is. */
const DEFAULT_MESSAGE = /^(Invalid|Too (big|small)|Unrecognized key)/;

/** One error per field path; messages written in the schema are kept, zod's defaults are reworded. */
export function fieldErrors(error: z.core.$ZodError): FieldError[] {
  const byPath = new Map<string, string>();
  for (const issue of error.issues) {
    const message =
      issue.code === 'custom' || !DEFAULT_MESSAGE.test(issue.message) ? issue.message : describeIssue(issue);
    const path = formatPath(issue.path);
    if (!byPath.has(path)) byPath.set(path, message);
  }
  return [...byPath].map(([path, message]) => ({ path, message }));
}

/** A workflow file that cannot be used, with every problem found. */
export class WorkflowValidationError extends Error {
  readonly errors: FieldError[];
  constructor(errors: FieldError[], source?: string) {
    super(
      `${source ? `${source}: ` : ''}invalid workflow definition:\n${errors.map((error) => `  - ${error.path}: ${error.message}`).join('\n')}`,
    );
    this.name = 'WorkflowValidationError';
    this.errors = errors;
  }
}
