/** Validation of one matcher object inside a leaf array, e.g. `{ "numeric": [">", 0] }`, with EventBridge's rules. */

import { MATCHER_KEYS, NUMERIC_LIMIT } from './event-pattern-types.ts';
import { parseCidr } from './ip-address.ts';
import { parseWildcard } from './wildcard.ts';

/** Reports one problem; the caller adds the location. */
export type Report = (message: string) => void;

const MATCHERS = new Set<string>(MATCHER_KEYS);
const NUMERIC_OPERATORS = new Set(['=', '>', '>=', '<', '<=']);

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const show = (value: unknown): string => JSON.stringify(value) ?? String(value);

/** Checks a matcher object and reports every problem found. */
export function validateMatcher(matcher: Record<string, unknown>, report: Report): void {
  const keys = Object.keys(matcher);
  if (keys.length !== 1) {
    report(
      keys.length === 0
        ? `an empty matcher {} matches nothing; use one of: ${MATCHER_KEYS.join(', ')}`
        : `a matcher takes exactly one key, found ${keys.map((key) => `'${key}'`).join(', ')}`,
    );
    return;
  }
  const key = keys[0] ?? '';
  const operand = matcher[key];
  if (!MATCHERS.has(key)) {
    report(`unknown matcher '${key}'; use one of: ${MATCHER_KEYS.join(', ')}`);
    return;
  }
  switch (key) {
    case 'prefix':
    case 'suffix':
      validateAffix(key, operand, report);
      return;
    case 'equals-ignore-case':
      if (typeof operand !== 'string') report(`equals-ignore-case needs a string, got ${show(operand)}`);
      return;
    case 'wildcard':
      validateWildcard(operand, 'wildcard', report);
      return;
    case 'exists':
      if (typeof operand !== 'boolean') report(`exists takes true or false, got ${show(operand)}`);
      return;
    case 'cidr': {
      if (typeof operand !== 'string') {
        report(`cidr needs a string such as "10.0.0.0/24", got ${show(operand)}`);
        return;
      }
      const parsed = parseCidr(operand);
      if (!parsed.ok) report(parsed.message);
      return;
    }
    case 'numeric':
      validateNumeric(operand, report);
      return;
    default:
      validateAnythingBut(operand, report);
  }
}

function validateAffix(key: 'prefix' | 'suffix', operand: unknown, report: Report): void {
  if (typeof operand === 'string') return;
  if (isPlainObject(operand)) {
    const keys = Object.keys(operand);
    if (keys.length === 1 && keys[0] === 'equals-ignore-case') {
      if (typeof operand['equals-ignore-case'] !== 'string') {
        report(
          `${key} {"equals-ignore-case": ...} needs a string, got ${show(operand['equals-ignore-case'])}`,
        );
      }
      return;
    }
  }
  report(`${key} needs a string, or {"equals-ignore-case": "..."}; got ${show(operand)}`);
}

function validateWildcard(operand: unknown, label: string, report: Report): void {
  if (typeof operand !== 'string') {
    report(`${label} needs a string such as "dir/*.png", got ${show(operand)}`);
    return;
  }
  const parsed = parseWildcard(operand);
  if (!parsed.ok) report(`${label} ${JSON.stringify(operand)}: ${parsed.message}`);
}

function checkNumber(value: unknown, after: string, report: Report): value is number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    report(`numeric: '${after}' must be followed by a number, got ${show(value)}`);
    return false;
  }
  if (Math.abs(value) > NUMERIC_LIMIT) {
    report(`numeric: ${value} is out of range; EventBridge compares numbers between -5.0e9 and 5.0e9`);
    return false;
  }
  return true;
}

function validateNumeric(operand: unknown, report: Report): void {
  if (!Array.isArray(operand) || operand.length === 0) {
    report(`numeric matcher needs an operator such as '>', as in [">", 0, "<=", 5]; got ${show(operand)}`);
    return;
  }
  const [operator, value, upperOperator, upperValue, ...extra] = operand as unknown[];
  if (typeof operator !== 'string' || !NUMERIC_OPERATORS.has(operator)) {
    report(
      `numeric matcher needs an operator such as '>' first (one of =, >, >=, <, <=); got ${show(operator)}`,
    );
    return;
  }
  if (!checkNumber(value, operator, report)) return;
  if (operand.length === 2) return;
  if (operator !== '>' && operator !== '>=') {
    report(
      `numeric: '${operator}' takes a single number; a range starts with '>' or '>=', as in [">", 0, "<=", 5]`,
    );
    return;
  }
  if (upperOperator !== '<' && upperOperator !== '<=') {
    report(
      `numeric: a range's upper bound needs '<' or '<=', as in [">", 0, "<=", 5]; got ${show(upperOperator)}`,
    );
    return;
  }
  if (!checkNumber(upperValue, upperOperator, report)) return;
  if (extra.length > 0) {
    report('numeric: too many elements; a range is [lower operator, number, upper operator, number]');
    return;
  }
  if (value >= upperValue)
    report(`numeric: the lower bound ${value} must be less than the upper bound ${upperValue}`);
}

const ANYTHING_BUT_KEYS = new Set(['prefix', 'suffix', 'equals-ignore-case', 'wildcard']);

function validateAnythingBut(operand: unknown, report: Report): void {
  if (typeof operand === 'string') return;
  if (typeof operand === 'number') {
    checkNumber(operand, 'anything-but', report);
    return;
  }
  if (Array.isArray(operand)) {
    if (operand.length === 0) report('anything-but needs at least one value to exclude');
    else if (operand.every((item) => typeof item === 'number'))
      for (const n of operand) checkNumber(n, 'anything-but', report);
    else if (!operand.every((item) => typeof item === 'string')) {
      report(`anything-but lists must be all strings or all numbers; got ${show(operand)}`);
    }
    return;
  }
  if (isPlainObject(operand)) {
    const keys = Object.keys(operand);
    const key = keys[0] ?? '';
    if (keys.length !== 1 || !ANYTHING_BUT_KEYS.has(key)) {
      report(
        `anything-but takes {"prefix"|"suffix"|"equals-ignore-case"|"wildcard": ...}; got ${show(operand)}`,
      );
      return;
    }
    const inner = operand[key];
    const values = Array.isArray(inner) ? inner : [inner];
    if (values.length === 0) report(`anything-but ${key} needs at least one string`);
    for (const value of values) {
      if (typeof value !== 'string') report(`anything-but ${key} needs strings, got ${show(value)}`);
      else if (key === 'wildcard') validateWildcard(value, 'anything-but wildcard', report);
      else if ((key === 'prefix' || key === 'suffix') && value === '')
        report(`anything-but ${key} cannot be empty`);
    }
    return;
  }
  report(
    `anything-but takes a string, a number, a list of either, or {"prefix"|"suffix"|"equals-ignore-case"|"wildcard": ...}; got ${show(operand)}`,
  );
}
