/**
 * Bounds of an evaluation, counted so that they do not depend on the machine's speed (expressions.ts):
 * - the steps: JSONata calls a hook on entering every evaluation step; it counts them against the evaluation's
 *   step budget (`GRAPH_TOO_MANY_STEPS`), which stops a runaway (an endless tail recursion, a huge `$map`) at the
 *   same step on every evaluation.
 * - the CPU time: a backstop past what the step budget takes, for runaways of heavy steps (CpuBackstop).
 * Bounds inside one evaluation step. The step count, the CPU backstop and JSONata's guardrails (`stack`,
 * `sequence`) are checked between steps, so one built-in call could allocate without limit before the
 * next check: `$pad("x", 200000000)`, or `$s := $s & $s` doubling a string to gigabytes (a count can come from
 * untrusted step output). Here:
 * - the built-ins whose result can be far larger than their arguments (`$pad`, `$join`, `$string`, `$replace`
 *   and `$clone`, which the transform operator uses) and the `&` operator (rewritten in the AST into a call of
 *   a bounded concatenation) check the size of what they would make before making it: at most
 *   `maxValueChars` characters (or array items) per value;
 * - every built-in call's result counts towards `maxProducedUnits` per evaluation (characters of a string,
 *   items of an array), checked after each step, so many bounded values cannot add up to an unbounded heap;
 * - sizes of objects (which may share sub-objects, so serializing them can be exponential) are measured by a
 *   walk that stops at the limit, never by serializing first; so are both sides of `=` / `!=` (rewritten into
 *   bounded calls like `&`, expression-equality.ts) and the items `$distinct` compares pairwise, whose count
 *   is capped too (its work grows with the square of it).
 * - `$toMillis(text, picture)` matches the text against a regex JSONata builds from the picture with the global
 *   `RegExp` (V8's backtracking engine): adjacent components without widths (`[f][f][f]`, names, words) take
 *   polynomial time over a long string. The call runs with `RegExp` bound to RE2 instead (pictureOnLinearEngine).
 * Each refusal is an error as data: `GRAPH_TOO_MANY_STEPS`, `GRAPH_VALUE_TOO_LARGE` or `GRAPH_PRODUCED_TOO_MUCH`.
 */
import jsonata from 'jsonata';
import { LinearRegExp } from '../regex/linear.ts';
import { isDeepEqual } from './expression-equality.ts';

export const VALUE_BOUNDS = {
  /** The longest string (characters) or array (items) one step may make. */
  maxValueChars: 1_000_000,
  /** Characters and array items all built-in calls of one evaluation may make together. */
  maxProducedUnits: 4_000_000,
} as const;

/** The variables the bounds bind; an expression may not name them (compile check in expressions.ts). */
export const RESERVED_PREFIX = '__';
const CONCAT = '__concat';
const EQUALS = '__equals';
const DIFFERS = '__differs';
/** `$distinct` compares each item with those kept so far: at most this many items. */
export const MAX_DISTINCT_ITEMS = 10_000;
const STATE = '__bounds';

type NativeFunction = {
  _jsonata_function: true;
  implementation: (...args: never[]) => unknown;
  signature?: unknown;
};
type BoundsState = { produced: number; steps: number; cpu: CpuBackstop; allowance?: StepAllowance };

/**
 * Microseconds of CPU this thread has run (user and system), the clock of the backstop: "the user and system
 * CPU time usage of the current worker thread" (https://nodejs.org/api/process.html#processthreadcpuusagepreviousvalue,
 * Node 23.9+; the functions run nodejs24.x).
 */
const threadCpuMicros = (): number => {
  const { user, system } = process.threadCpuUsage();
  return user + system;
};

/**
 * The backstop of one evaluation (expressions.ts, `EXPRESSION_LIMITS.backstopCpuMs`), on this thread's CPU time
 * rather than the wall clock: on a starved CPU (a loaded machine, a Lambda's CPU share) the clock runs on while
 * the evaluation does not, and a wall-clock limit would race the step count for the same work. Reading the CPU
 * time costs a system call (~0.5 µs, a step's worth), so it is read only when the monotonic clock
 * (`performance.now()`, which never steps back) says it may have run out: a thread's CPU time grows no faster
 * than elapsed time, so after a reading with `left` ms to go the next is due `left` ms later. Both are resource
 * measurements, not time the graph acts on: no outcome reads them but this backstop's refusal, and the step
 * budget, which is deterministic, is met first (test/core/purity.test.ts keeps the wall clock out of the core).
 */
type CpuBackstop = { limitMicros: number; startMicros: number; readAt: number; dueAfterMs: number };

const cpuBackstop = (limitMs: number): CpuBackstop => ({
  limitMicros: limitMs * 1000,
  startMicros: threadCpuMicros(),
  readAt: performance.now(),
  dueAfterMs: limitMs,
});

/** Throws `GRAPH_TOO_MUCH_CPU` once the evaluation has run its backstop's CPU time. */
function checkCpu(backstop: CpuBackstop): void {
  const now = performance.now();
  if (now - backstop.readAt < backstop.dueAfterMs) return;
  const used = threadCpuMicros() - backstop.startMicros;
  if (used > backstop.limitMicros)
    throw {
      code: 'GRAPH_TOO_MUCH_CPU',
      message:
        `the expression ran more than ${backstop.limitMicros / 1000} ms of CPU (EXPRESSION_LIMITS.backstopCpuMs) ` +
        'within its step budget: its steps call built-ins over large values (sorting, scanning or copying them) ' +
        'over and over; do that work once, in a step',
    };
  backstop.readAt = now;
  backstop.dueAfterMs = Math.max(1, (backstop.limitMicros - used) / 1000);
}

/**
 * The evaluation steps of one invocation, across every decision it makes: a decision made again after a write
 * conflict, a service step's args and the decision after them. Each decision counts its own steps against its
 * StepAllowance (so its outcome is what it would be alone); all of them count here too, and past `total` the
 * evaluation throws InvocationStepsSpentError, recording nothing.
 */
export class InvocationSteps {
  used = 0;
  readonly total: number;
  constructor(total: number) {
    this.total = total;
  }
  /** The allowance of the invocation's next decision: its own `total` steps, drawn from this invocation's. */
  decision(): StepAllowance {
    return new StepAllowance(this.total, this);
  }
}

/**
 * Evaluation steps that several evaluations of one decision draw from together (`GRAPH_CONDITIONS_OVER_BUDGET`
 * when it runs out), on top of each evaluation's own `maxSteps`: one Advance evaluates up to 400 conditions and
 * the templates of the steps it starts, and 400 × maxSteps would run far past its Lambda timeout
 * (EXPRESSION_LIMITS.maxStepsPerInvocation, expressions.ts, has the sizing). Counted like the steps of one
 * evaluation, so the same expressions over the same data run out at the same step. Its steps also count towards
 * its `invocation` (InvocationSteps; one of its own unless given), which bounds the decisions of one invocation
 * together.
 */
export class StepAllowance {
  used = 0;
  readonly total: number;
  readonly invocation: InvocationSteps;
  constructor(total: number, invocation: InvocationSteps = new InvocationSteps(total)) {
    this.total = total;
    this.invocation = invocation;
  }
  /** Whether nothing is left: the next step of any evaluation drawing from it fails. */
  get spent(): boolean {
    return this.used >= this.total;
  }
}

/**
 * The invocation's steps ran out in a decision that had not used up its own allowance: the decisions before it
 * (made again after write conflicts) took the rest. What a decision alone would give is not known, so nothing
 * is recorded and the invocation fails with this error (never `GRAPH_CONDITIONS_OVER_BUDGET`, which the same
 * data would then not give every time). The graph machine retries it in a fresh invocation, whose first decision
 * has the whole allowance (ENGINE_RETRYABLE_ERRORS, infra/constructs/state-names.ts).
 */
export class InvocationStepsSpentError extends Error {
  override readonly name = 'InvocationStepsSpentError';
}

export const OVER_BUDGET = 'GRAPH_CONDITIONS_OVER_BUDGET';

const tooLarge = (what: string, size: number | string) => ({
  code: 'GRAPH_VALUE_TOO_LARGE',
  message: `${what} would be ${size} long, over the ${VALUE_BOUNDS.maxValueChars} an expression may make`,
});

/**
 * The size of `value` as JSON text, in characters, walking shared sub-objects each time they are reached (as
 * JSON.stringify would), stopping as soon as it passes `limit`: undefined then. `indent` counts prettified
 * whitespace per nesting level.
 */
export function jsonSizeWithin(value: unknown, limit: number, indent = 0): number | undefined {
  let size = 0;
  const visit = (node: unknown, depth: number): boolean => {
    if (size > limit) return false;
    if (typeof node === 'string') size += node.length + 2;
    else if (typeof node === 'number' || typeof node === 'boolean' || node === null)
      size += String(node).length;
    else if (Array.isArray(node)) {
      size += 2 + node.length * (1 + indent * (depth + 1));
      for (const item of node) if (!visit(item, depth + 1)) return false;
    } else if (typeof node === 'object') {
      for (const [key, item] of Object.entries(node)) {
        size += key.length + 4 + indent * (depth + 1);
        if (!visit(item, depth + 1)) return false;
      }
      size += 2;
    }
    return size <= limit;
  };
  return visit(value, 0) ? size : undefined;
}

/** The length a value counts for: characters of a string, items of an array, else nothing. */
const lengthOf = (value: unknown): number =>
  typeof value === 'string' || Array.isArray(value) ? value.length : 0;

/** JSONata's own built-ins, read once from a bare expression (`$pad` evaluates to its definition). */
const builtins = new Map<string, NativeFunction>();
async function builtin(name: string): Promise<NativeFunction> {
  let found = builtins.get(name);
  if (!found) {
    found = (await jsonata(`$${name}`).evaluate({})) as NativeFunction;
    builtins.set(name, found);
  }
  return found;
}

/** A replacement of a built-in: the same signature, so JSONata validates arguments as before. */
const like = (original: NativeFunction, implementation: NativeFunction['implementation']): NativeFunction =>
  original.signature === undefined
    ? { _jsonata_function: true, implementation }
    : { _jsonata_function: true, implementation, signature: original.signature };

/** The string JSONata's `$string` would make of `value`, refused before making it when too large. */
function boundedString(string: NativeFunction, self: unknown, value: unknown, prettify?: boolean): string {
  if (typeof value !== 'string' && value !== undefined) {
    const size = jsonSizeWithin(value, VALUE_BOUNDS.maxValueChars, prettify ? 2 : 0);
    if (size === undefined) throw tooLarge('$string() of this value', 'more than that');
  }
  return (string.implementation as (v: unknown, p?: boolean) => string).call(self, value, prettify);
}

/** `new RegExp(source, flags)` as JSONata's date parsing calls it, made on RE2. */
function LinearPictureRegExp(source: string, flags?: string): LinearRegExp {
  return new LinearRegExp({ source, flags: flags ?? '' } as RegExp);
}

/**
 * Runs JSONata's `$toMillis` with the global `RegExp` bound to RE2, so the regex it builds from the picture
 * (jsonata-js `parseDateTime`: `new RegExp(fullRegex, 'i')`, then `exec`) matches in linear time. JSONata
 * exposes no engine option for it. The call is synchronous, so nothing else runs while the binding is swapped,
 * and it is restored before returning or throwing.
 */
function pictureOnLinearEngine<T>(call: () => T): T {
  const v8 = globalThis.RegExp;
  globalThis.RegExp = LinearPictureRegExp as unknown as RegExpConstructor;
  try {
    return call();
  } finally {
    globalThis.RegExp = v8;
  }
}

/** Counts `length` occurrences of `pattern` in `str` (at most `limit`) and the longest match. */
async function matchesOf(
  str: string,
  pattern: unknown,
  limit: number,
): Promise<{ count: number; longest: number }> {
  let count = 0;
  let longest = 0;
  if (typeof pattern === 'string') {
    if (pattern === '') return { count: 0, longest: 0 };
    for (
      let at = str.indexOf(pattern);
      at >= 0 && count < limit;
      at = str.indexOf(pattern, at + pattern.length)
    )
      count++;
    return { count, longest: pattern.length };
  }
  // A JSONata regex is a function answering the first match and `next()` for the following ones; passed to a
  // function, JSONata hands it over wrapped, answering a promise.
  type Match = { match: string; next: () => Match | Promise<Match> } | undefined;
  const first = (pattern as (s: string) => Match | Promise<Match>)(str);
  for (let match = await first; match && count < limit; match = await match.next()) {
    count++;
    longest = Math.max(longest, match.match.length);
  }
  return { count, longest };
}

/**
 * The bindings of one evaluation: the bounded built-ins, the bounded `&`, and the step and produced-units
 * tallies; the steps drawn from `allowance` too when given.
 */
export async function boundedBindings(
  backstopCpuMs: number,
  allowance?: StepAllowance,
): Promise<Record<string, unknown>> {
  const [pad, join, string, replace, clone, distinct, toMillis] = (await Promise.all(
    ['pad', 'join', 'string', 'replace', 'clone', 'distinct', 'toMillis'].map(builtin),
  )) as [
    NativeFunction,
    NativeFunction,
    NativeFunction,
    NativeFunction,
    NativeFunction,
    NativeFunction,
    NativeFunction,
  ];
  const max = VALUE_BOUNDS.maxValueChars;
  /** JSONata's `=`: false when either side is absent; each side sized before the deep comparison. */
  const equal = (lhs: unknown, rhs: unknown): boolean => {
    if (lhs === undefined || rhs === undefined) return false;
    if (jsonSizeWithin(lhs, max) === undefined || jsonSizeWithin(rhs, max) === undefined)
      throw tooLarge('a value compared with = or !=', 'more than that');
    return isDeepEqual(lhs, rhs);
  };
  const cpu = cpuBackstop(backstopCpuMs);
  const state: BoundsState = allowance
    ? { produced: 0, steps: 0, cpu, allowance }
    : { produced: 0, steps: 0, cpu };
  return {
    [STATE]: state,
    // Parameter names matter: JSONata reads them to partially apply a built-in (`$pad(?, 10)`).
    pad: like(pad, function (this: unknown, str: string, width: number, char?: string) {
      if (Math.abs(width) > max) throw tooLarge('$pad()', Math.abs(width));
      return (pad.implementation as (...a: unknown[]) => unknown).call(this, str, width, char);
    }),
    join: like(join, function (this: unknown, strs: string[] | string, separator?: string) {
      const parts = Array.isArray(strs) ? strs : [strs];
      const size =
        parts.reduce((sum, part) => sum + lengthOf(part), 0) + (separator ?? '').length * parts.length;
      if (size > max) throw tooLarge('$join()', size);
      return (join.implementation as (...a: unknown[]) => unknown).call(this, strs, separator);
    }),
    string: like(string, function (this: unknown, arg: unknown, prettify?: boolean) {
      return boundedString(string, this, arg, prettify);
    }),
    replace: like(
      replace,
      async function (this: unknown, str: string, pattern: unknown, replacement: unknown, limit?: number) {
        const original = () =>
          (replace.implementation as (...a: unknown[]) => unknown).call(
            this,
            str,
            pattern,
            replacement,
            limit,
          );
        if (typeof str !== 'string') return original();
        // A function's answers cannot be sized before they are made: only text replacements are allowed.
        if (typeof replacement !== 'string')
          throw {
            code: 'GRAPH_FORBIDDEN_FUNCTION',
            message: '$replace() with a function replacement is not allowed here',
          };
        const { count, longest } = await matchesOf(str, pattern, limit ?? Number.POSITIVE_INFINITY);
        // `$n` in the replacement inserts a matched group, at most the whole match.
        const references = replacement.split('$').length - 1;
        const size = str.length + count * (replacement.length + references * longest);
        if (size > max) throw tooLarge('$replace()', size);
        return original();
      },
    ),
    distinct: like(distinct, function (this: unknown, arr: unknown) {
      if (Array.isArray(arr) && arr.length > MAX_DISTINCT_ITEMS)
        throw {
          code: 'GRAPH_VALUE_TOO_LARGE',
          message: `$distinct() of ${arr.length} items; at most ${MAX_DISTINCT_ITEMS} may be compared`,
        };
      if (jsonSizeWithin(arr, max) === undefined)
        throw tooLarge('$distinct() of this value', 'more than that');
      return (distinct.implementation as (...a: unknown[]) => unknown).call(this, arr);
    }),
    toMillis: like(toMillis, function (this: unknown, timestamp: unknown, picture?: unknown) {
      const original = () =>
        (toMillis.implementation as (...a: unknown[]) => unknown).call(this, timestamp, picture);
      // Without a picture the text is checked against JSONata's fixed ISO 8601 regex (optional groups only).
      return picture === undefined ? original() : pictureOnLinearEngine(original);
    }),
    [EQUALS]: { _jsonata_function: true, implementation: (lhs: unknown, rhs: unknown) => equal(lhs, rhs) },
    [DIFFERS]: {
      _jsonata_function: true,
      // JSONata's `!=` is false, not true, when either side is absent.
      implementation: (lhs: unknown, rhs: unknown) =>
        lhs !== undefined && rhs !== undefined && !equal(lhs, rhs),
    },
    clone: like(clone, function (this: unknown, arg: unknown) {
      if (jsonSizeWithin(arg, max) === undefined) throw tooLarge('the transformed value', 'more than that');
      return (clone.implementation as (...a: unknown[]) => unknown).call(this, arg);
    }),
    // `a & b`, rewritten (boundConcatenation): JSONata's own rule — each side as `$string` makes it — sized first.
    [CONCAT]: {
      _jsonata_function: true,
      implementation(this: unknown, lhs: unknown, rhs: unknown) {
        const left = lhs === undefined ? '' : boundedString(string, this, lhs);
        const right = rhs === undefined ? '' : boundedString(string, this, rhs);
        if (left.length + right.length > max)
          throw tooLarge('a string joined with &', left.length + right.length);
        return left.concat(right);
      },
    },
  };
}

/** An evaluation frame as the step hooks see it: `base` is the evaluation's root frame, holding the bindings. */
type Frame = { lookup(name: string): unknown; base?: { lookup(name: string): unknown } };

/**
 * The step count: JSONata calls this on entering every evaluation step (jsonata-js 2.2 `evaluate`, the hook
 * bound as `Symbol.for('jsonata.__evaluate_entry')`), the same points where its own guardrails run. The tally is
 * the evaluation's own (`$__bounds`), so concurrent evaluations of one compiled expression count apart, and the
 * same expression over the same data trips at the same step on every evaluation, however fast the machine. A
 * step also counts towards the evaluation's StepAllowance when it has one, and its invocation's; the
 * expression's own cap is checked first, so an expression over its `maxSteps` fails `GRAPH_TOO_MANY_STEPS`
 * whatever is left of the allowance, then the allowance's, then the invocation's. The CPU backstop comes after
 * all the counts, so a step past one of them fails on the count, never on the machine.
 */
function stepCounter(maxSteps: number) {
  return (_expr: unknown, _input: unknown, environment: Frame): void => {
    const state = (environment.base ?? environment).lookup(STATE) as BoundsState | undefined;
    if (!state) throw { code: 'GRAPH_TOO_MANY_STEPS', message: 'the expression runs without a step count' };
    const { allowance } = state;
    if (allowance) {
      allowance.used += 1;
      allowance.invocation.used += 1;
    }
    if (++state.steps > maxSteps)
      throw {
        code: 'GRAPH_TOO_MANY_STEPS',
        message: `the expression took more than ${maxSteps} evaluation steps`,
      };
    if (allowance && allowance.used > allowance.total)
      throw {
        code: OVER_BUDGET,
        message:
          `the conditions and templates evaluated in one invocation took more than ${allowance.total} ` +
          'evaluation steps together (EXPRESSION_LIMITS.maxStepsPerInvocation); simplify them or split the graph',
      };
    // Checked last: a step past the evaluation's or the decision's own bound fails as it would alone.
    if (allowance && allowance.invocation.used > allowance.invocation.total)
      throw new InvocationStepsSpentError(
        `the expressions of this invocation took more than ${allowance.invocation.total} evaluation steps ` +
          'together (EXPRESSION_LIMITS.maxStepsPerInvocation) over the decisions it made again after write ' +
          'conflicts; nothing was recorded from the last one',
      );
    checkCpu(state.cpu);
  };
}

/**
 * Counts what each built-in call made towards `maxProducedUnits` (called by JSONata after every step; the
 * tally is the evaluation's own, bound as `$__bounds`). Lambdas are not counted at their call: what they make
 * is counted at the built-in calls inside them.
 */
async function afterStep(
  expr: { type?: string; procedure?: { type?: string; value?: unknown } },
  _input: unknown,
  environment: { lookup(name: string): unknown },
  result: unknown,
): Promise<void> {
  if (expr.type !== 'function' && expr.type !== 'apply') return;
  const { procedure } = expr;
  if (expr.type === 'function') {
    if (procedure?.type !== 'variable' || typeof procedure.value !== 'string') return;
    const callee = environment.lookup(procedure.value) as Partial<NativeFunction> | undefined;
    if (callee?._jsonata_function !== true) return;
  }
  const made = lengthOf(result);
  if (made === 0) return;
  if (made > VALUE_BOUNDS.maxValueChars) throw tooLarge('a value', made);
  const state = environment.lookup(STATE) as BoundsState | undefined;
  if (!state) return;
  state.produced += made;
  if (state.produced > VALUE_BOUNDS.maxProducedUnits)
    throw {
      code: 'GRAPH_PRODUCED_TOO_MUCH',
      message: `the expression made more than ${VALUE_BOUNDS.maxProducedUnits} characters and items in all`,
    };
}

type Node = Record<string, unknown>;

/** The bounded call each rewritten operator becomes. */
const REWRITTEN = new Map([
  ['&', CONCAT],
  ['=', EQUALS],
  ['!=', DIFFERS],
]);

/**
 * Rewrites every `a & b`, `a = b` and `a != b` of the AST in place into `$__concat(a, b)`, `$__equals(a, b)`
 * and `$__differs(a, b)`, and installs the step count (at most `maxSteps`) and the per-step produced count.
 */
export function bindBounds(expression: jsonata.Expression, maxSteps: number): void {
  const rewrite = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) rewrite(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    for (const child of Object.values(node)) rewrite(child);
    const binary = node as Node;
    const bounded = binary.type === 'binary' ? REWRITTEN.get(String(binary.value)) : undefined;
    if (bounded) {
      const { lhs, rhs, position } = binary;
      delete binary.lhs;
      delete binary.rhs;
      Object.assign(binary, {
        type: 'function',
        value: '(',
        procedure: { type: 'variable', value: bounded, position },
        arguments: [lhs, rhs],
      });
    }
  };
  rewrite(expression.ast());
  expression.assign(Symbol.for('jsonata.__evaluate_entry') as unknown as string, stepCounter(maxSteps));
  expression.assign(Symbol.for('jsonata.__evaluate_exit') as unknown as string, afterStep);
}
