/**
 * JSONata expressions for edge conditions and templates: compiled once, evaluated with bounds, errors as data.
 *
 * Bounds. JSONata is Turing-complete, so every evaluation is bounded, and by counts, not by time: re-evaluating
 * a condition after a crash must give the same answer on a fast machine and on a loaded or throttled one.
 * - Steps: at most `maxSteps` evaluation steps (`GRAPH_TOO_MANY_STEPS`), counted by JSONata's evaluate-entry
 *   hook (expression-bounds.ts), the point where its own guardrails run. This replaces a 250 ms wall-clock
 *   timeout, which a harmless condition could hit on a starved CPU. Sized from `npm run bench:expression-steps`:
 *   the conditions and templates of the docs and examples take under 10 steps, and heavy legitimate ones over
 *   10,000 items (the sequence cap) ~40,000–110,000; a step costs ~0.5–3 µs of CPU, so the budget is ~0.15–0.75 s.
 * - Steps of one invocation: the expressions one invocation evaluates (an Advance's conditions and templates)
 *   draw from one StepAllowance of `maxStepsPerInvocation` steps together (`GRAPH_CONDITIONS_OVER_BUDGET`),
 *   sized from the function's timeout and memory below, each still within its own `maxSteps`.
 * - Depth and sequences: jsonata-js 2.2's guardrail options `stack` (D1011) and `sequence` (D2015).
 * - What one step makes: the allocating built-ins and `&` size their result before making it, and all calls of
 *   one evaluation share a cap (expression-bounds.ts); the input and the result are size-capped.
 * - A CPU-time backstop, the one bound that depends on the machine (its core's speed, not its load):
 *   `backstopCpuMs` of this thread's CPU per evaluation (`GRAPH_TOO_MUCH_CPU`, CpuBackstop in
 *   expression-bounds.ts), far beyond what the step budget takes. It is there because a step is not bounded in
 *   time: one built-in call over a 1M-character or 10,000-item value takes milliseconds ($sort of 10,000 numbers
 *   ~80 ms, $distinct ~18 ms, an RE2 scan of 1M characters ~6 ms), so a runaway loop of such calls could run for
 *   minutes within the step budget. Only such a runaway meets it. It counts CPU, not the wall clock (JSONata's
 *   own `timeout`, D1012, which this replaces), so that it never races the step count for the same work: on a
 *   starved CPU the clock runs on while the evaluation does not. Measured (a
 *   151,361-step condition, evaluateExpression timed by process.threadCpuUsage, on a 2-core Xeon): ~1.2 µs of
 *   CPU a step whether the machine was quiet or at load 8, while the wall clock took 1.3–6.5 µs a step; under the load of a whole test suite (load ~20) a 149,000-step
 *   evaluation passed 5 s of wall clock and failed D1012 instead of meeting the step allowance. On Lambda the
 *   same: 512 MB buys ~0.29 of a vCPU (see maxStepsPerInvocation), so a 5 s wall-clock limit was ~1.45 s of
 *   CPU, under the 2.5 s an evaluation at `maxSteps` may take at the costliest step (5 µs) on a core half as
 *   fast. 5 s of CPU is twice that, and one runaway still ends within GraphAdvance's 30 s (~17 s of wall clock
 *   at 0.29 of a vCPU), failing with its own error rather than the function's timeout.
 *   test/infra/expression-budget.test.ts checks this arithmetic.
 * See `jsonata(expr, options)` and `evaluate` in node_modules/jsonata/jsonata.js for the guardrails and hooks;
 * JSONata's test suite timeboxes the same way (https://github.com/jsonata-js/jsonata/blob/master/test/run-test-suite.js
 * hooks `__evaluate_entry` / `__evaluate_exit`). Functions that make a result depend on anything but the run
 * data ($now, $millis, $random) or escape static checks ($eval) are refused at compile time.
 *
 * Regex literals (`$match(s, /…/)`, `$replace`, `$split`, `$contains`) run on RE2 (shared/regex/linear.ts), in
 * time linear in the text, never on V8's backtracking engine: the guardrails above are checked between steps,
 * so one backtracking `exec` over step output could hold the Lambda until its timeout (ReDoS). A literal RE2
 * cannot run (a backreference, a lookaround) is refused at compile time (`GRAPH_REGEX_UNSUPPORTED`), and one
 * saved before that check fails closed when evaluated, with the same code.
 */
import jsonata from 'jsonata';
import { LinearRegExp } from '../regex/linear.ts';
import { linearSyntaxMessage, linearSyntaxProblem } from '../regex/syntax.ts';
import {
  bindBounds,
  boundedBindings,
  InvocationSteps,
  InvocationStepsSpentError,
  jsonSizeWithin,
  RESERVED_PREFIX,
  type StepAllowance,
} from './expression-bounds.ts';

export const EXPRESSION_LIMITS = {
  maxSourceChars: 2000,
  /** Evaluation steps per evaluation (`GRAPH_TOO_MANY_STEPS`): the deterministic bound on work. */
  maxSteps: 250_000,
  /**
   * Evaluation steps the expressions of one invocation take together (`GRAPH_CONDITIONS_OVER_BUDGET`), each
   * evaluation within its own `maxSteps` too: in one Advance decision (decide.ts) the conditions of readiness()
   * (up to 400 edges) and then the templates of the steps it starts; in GraphService a service step's args, then
   * the decision after it; in HumanTask a human task's context paths (at most 20).
   * Sized from GraphAdvance, 30 s and 512 MB (RUNTIME_FUNCTION_DEFAULTS, infra/constructs/runtime-function.ts;
   * GraphWait and HumanTask have the same, GraphService 120 s), and `npm run bench:expression-steps`, whose
   * costliest legitimate steps took up to 4.1 µs of CPU each (0.4–4.1 µs for conditions over 10,000 items in
   * two runs, 0.7–0.8 µs for the runaways; a 2-core AMD EPYC at load 3–7), rounded up to 5 µs:
   *   300,000 steps × 5 µs = 1.5 s of one vCPU. Lambda allocates CPU in proportion to memory, one vCPU at
   *   1,769 MB (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html), so 512 MB has
   *   512 / 1,769 ≈ 0.29 of one: ~5.2 s of wall clock, ~10.4 s on a core half as fast as the bench's — about a
   *   third of the 30 s timeout. That is the bound of the invocation, however many decisions it makes: a
   *   decision made again after a write conflict (Advance, GraphService, HumanTask: up to 5 tries) and the
   *   decision after a service step's args each count their own steps against this total (so each stops at
   *   the same edge as it would alone), and all of them count against one InvocationSteps of the same total
   *   (invocationSteps()); past it the invocation fails `InvocationStepsSpentError`, recording nothing from
   *   the decision it was making, and the graph machine retries it in a fresh invocation.
   * test/infra/expression-budget.test.ts checks this arithmetic against the functions' settings. It allows one
   * condition at the `maxSteps` cap, or ~3–7 that filter 10,000 items (40,000–110,000 steps each), beside
   * hundreds of simple ones (under 10 steps). Heavy steps (one built-in call over 10,000 items or 1M characters,
   * milliseconds each) are bounded by `backstopCpuMs` per evaluation only, not by this.
   */
  maxStepsPerInvocation: 300_000,
  /**
   * Milliseconds of CPU per evaluation (`GRAPH_TOO_MUCH_CPU`): a backstop for runaways of heavy steps only, on
   * CPU time so that a starved CPU never makes it race the step count (sizing in the comment at the top).
   */
  backstopCpuMs: 5_000,
  maxDepth: 200,
  maxSequence: 10_000,
  maxInputBytes: 512_000,
  maxResultBytes: 64_000,
} as const;

/**
 * The steps of one invocation's expressions, EXPRESSION_LIMITS.maxStepsPerInvocation in all however many
 * decisions it makes (again after a write conflict): each decision takes its allowance from `decision()`.
 */
export const invocationSteps = (): InvocationSteps =>
  new InvocationSteps(EXPRESSION_LIMITS.maxStepsPerInvocation);

/** The allowance of an invocation that makes one decision: EXPRESSION_LIMITS.maxStepsPerInvocation steps. */
export const invocationAllowance = (): StepAllowance => invocationSteps().decision();

/**
 * Functions refused in conditions and templates: nondeterministic (the clock, `$random`, and `$shuffle`, whose
 * order is random on every call), or evaluating text as code. A definition saved before one was refused fails
 * closed when evaluated, with the same code.
 */
export const FORBIDDEN_FUNCTIONS = ['now', 'millis', 'random', 'shuffle', 'eval'] as const;

/** An expression problem, as data: a JSONata error code (S0201, D1011 …) or one of ours (`GRAPH_…`). */
export type ExpressionError = { code: string; message: string; position?: number };

export type ExpressionAst = jsonata.ExprNode;

/** A parsed, checked expression. */
export type CompiledExpression = { source: string; ast: ExpressionAst; run: jsonata.Expression };

export type Result<T> = { ok: true; value: T } | { ok: false; error: ExpressionError };

const fail = (code: string, message: string, position?: number): { ok: false; error: ExpressionError } => ({
  ok: false,
  error: position === undefined ? { code, message } : { code, message, position },
});

/** A JSONata error thrown by the library as a plain object, or anything else, as data. */
export function toExpressionError(thrown: unknown): ExpressionError {
  if (typeof thrown === 'object' && thrown !== null) {
    const { code, message, position } = thrown as { code?: unknown; message?: unknown; position?: unknown };
    return {
      code: typeof code === 'string' ? code : 'GRAPH_EXPRESSION',
      message: typeof message === 'string' ? message : 'the expression failed',
      ...(typeof position === 'number' ? { position } : {}),
    };
  }
  return { code: 'GRAPH_EXPRESSION', message: String(thrown) };
}

function forbiddenCall(node: unknown): { name: string; position?: number } | undefined {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = forbiddenCall(item);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof node !== 'object' || node === null) return undefined;
  const { type, value, position } = node as { type?: unknown; value?: unknown; position?: unknown };
  const named = type === 'variable' && typeof value === 'string';
  const reserved = named && value.startsWith(RESERVED_PREFIX);
  if (reserved || (named && (FORBIDDEN_FUNCTIONS as readonly string[]).includes(value))) {
    return typeof position === 'number' ? { name: value, position } : { name: value };
  }
  for (const child of Object.values(node)) {
    const found = forbiddenCall(child);
    if (found) return found;
  }
  return undefined;
}

/** The first regex literal of the AST that RE2 cannot run, as an error. */
function unsupportedRegex(node: unknown): ExpressionError | undefined {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = unsupportedRegex(item);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof node !== 'object' || node === null || node instanceof RegExp) return undefined;
  const { type, value, position } = node as { type?: unknown; value?: unknown; position?: unknown };
  const problem = type === 'regex' && value instanceof RegExp ? linearSyntaxProblem(value.source) : undefined;
  if (problem && value instanceof RegExp) {
    const message = linearSyntaxMessage(value.source, problem);
    return typeof position === 'number'
      ? { code: 'GRAPH_REGEX_UNSUPPORTED', message, position }
      : { code: 'GRAPH_REGEX_UNSUPPORTED', message };
  }
  for (const child of Object.values(node)) {
    const found = unsupportedRegex(child);
    if (found) return found;
  }
  return undefined;
}

/**
 * Where regex literals run: jsonata reads `options.RegexEngine` at every evaluation. evaluateExpression binds
 * RE2 (not compileExpression: the save path only compiles, so its bundle does not carry the engine). Unbound,
 * a regex literal fails closed rather than fall back to V8's backtracking RegExp.
 */
const regexEngine: { current: RegExpConstructor } = {
  current: class UnboundRegExp {
    constructor() {
      throw { code: 'GRAPH_REGEX_UNSUPPORTED', message: 'no linear-time regex engine is bound here' };
    }
  } as unknown as RegExpConstructor,
};

/** Parses and checks an expression; never throws. */
export function compileExpression(source: string): Result<CompiledExpression> {
  if (source.trim() === '') return fail('GRAPH_EMPTY', 'the expression is empty');
  if (source.length > EXPRESSION_LIMITS.maxSourceChars) {
    return fail(
      'GRAPH_TOO_LONG',
      `the expression is longer than ${EXPRESSION_LIMITS.maxSourceChars} characters`,
    );
  }
  let run: jsonata.Expression;
  try {
    run = jsonata(source, {
      stack: EXPRESSION_LIMITS.maxDepth,
      sequence: EXPRESSION_LIMITS.maxSequence,
      get RegexEngine() {
        return regexEngine.current;
      },
    });
  } catch (thrown) {
    return { ok: false, error: toExpressionError(thrown) };
  }
  const ast = run.ast();
  const forbidden = forbiddenCall(ast);
  if (forbidden) {
    return fail('GRAPH_FORBIDDEN_FUNCTION', `$${forbidden.name}() is not allowed here`, forbidden.position);
  }
  const regex = unsupportedRegex(ast);
  if (regex) return { ok: false, error: regex };
  // After the checks, which read the expression as written: `&` becomes a bounded call (expression-bounds.ts).
  bindBounds(run, EXPRESSION_LIMITS.maxSteps);
  return { ok: true, value: { source, ast, run } };
}

const jsonBytes = (value: unknown): number =>
  value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

/**
 * Evaluates over `data` within EXPRESSION_LIMITS, its steps drawn from `allowance` too when given (several
 * evaluations of one invocation, `GRAPH_CONDITIONS_OVER_BUDGET`). An absent path is `undefined`, not an error.
 */
export async function evaluateExpression(
  expression: CompiledExpression,
  data: unknown,
  allowance?: StepAllowance,
): Promise<Result<unknown>> {
  if (jsonBytes(data) > EXPRESSION_LIMITS.maxInputBytes) {
    return fail(
      'GRAPH_INPUT_TOO_LARGE',
      `the run data is larger than ${EXPRESSION_LIMITS.maxInputBytes} bytes`,
    );
  }
  let value: unknown;
  regexEngine.current = LinearRegExp as unknown as RegExpConstructor;
  try {
    value = await expression.run.evaluate(
      data,
      await boundedBindings(EXPRESSION_LIMITS.backstopCpuMs, allowance),
    );
  } catch (thrown) {
    // Not the expression's outcome: the invocation's earlier decisions used up its steps (expression-bounds.ts).
    if (thrown instanceof InvocationStepsSpentError) throw thrown;
    return { ok: false, error: toExpressionError(thrown) };
  }
  if (typeof value === 'function')
    return fail('GRAPH_RESULT_FUNCTION', 'the expression evaluates to a function');
  // JSONata sequences are arrays with extra flags; a JSON round trip makes the result plain data. Sized by a
  // walk that stops at the cap first: a result sharing sub-objects could serialize to gigabytes.
  const within = jsonSizeWithin(value, EXPRESSION_LIMITS.maxResultBytes);
  const size = within === undefined ? Number.POSITIVE_INFINITY : jsonBytes(value);
  if (size > EXPRESSION_LIMITS.maxResultBytes) {
    return fail(
      'GRAPH_RESULT_TOO_LARGE',
      `the result is larger than ${EXPRESSION_LIMITS.maxResultBytes} bytes`,
    );
  }
  return { ok: true, value: value === undefined ? undefined : JSON.parse(JSON.stringify(value)) };
}

/**
 * Evaluates an edge condition. `true` fires the edge; `false` or an absent value (a path that does not exist,
 * e.g. the output of a skipped step) does not; any other type is an error, so a typo never fires an edge.
 */
export async function evaluateCondition(
  expression: CompiledExpression,
  data: unknown,
  allowance?: StepAllowance,
): Promise<Result<boolean>> {
  const result = await evaluateExpression(expression, data, allowance);
  if (!result.ok) return result;
  if (result.value === undefined) return { ok: true, value: false };
  if (typeof result.value !== 'boolean') {
    return fail(
      'GRAPH_NOT_BOOLEAN',
      `a condition must be true or false, got ${JSON.stringify(result.value)}`,
    );
  }
  return { ok: true, value: result.value };
}
