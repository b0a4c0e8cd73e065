/**
 * Owners' regular expressions, run where untrusted text meets them (JSONata regex literals over step outputs,
 * JSON Schema `pattern` / `patternProperties` over model outputs and form submissions), in linear time: RE2's
 * automata (re2js, a pure-JS port of RE2/Go regexp) instead of V8's backtracking engine, so no input can make
 * a pattern such as `/(a+)+$/` run for the life of the Lambda (ReDoS). A pattern RE2 cannot run
 * (backreferences, lookaround: syntax.ts) throws `RegexUnsupportedError`: the caller fails closed.
 * Only the run-time bundles import this module; the save check reads syntax.ts instead.
 */
import { RE2JS } from 're2js';
import type { PatternEngine, PatternTester } from './checked-patterns.ts';
import { linearSyntaxMessage, linearSyntaxProblem } from './syntax.ts';

/** A pattern the linear-time engine cannot run; `code` is what expressions report. */
export class RegexUnsupportedError extends Error {
  readonly code = 'GRAPH_REGEX_UNSUPPORTED';
  readonly pattern: string;
  constructor(pattern: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RegexUnsupportedError';
    this.pattern = pattern;
  }
}

type Compiled = ReturnType<typeof RE2JS.compile>;

/** Compiled patterns by flags and source: a JSONata literal is made again at each evaluation of its node. */
const compiledCache = new Map<string, Compiled>();
const MAX_CACHED = 256;

/** RE2's form of a JavaScript pattern (flags `i`, `m`, `s` become `(?ims)`), or RegexUnsupportedError. */
export function compileLinear(pattern: string, flags = ''): Compiled {
  const key = `${flags}/${pattern}`;
  const cached = compiledCache.get(key);
  if (cached) return cached;
  const compiled = compileUncached(pattern, flags);
  if (compiledCache.size >= MAX_CACHED) compiledCache.delete(compiledCache.keys().next().value as string);
  compiledCache.set(key, compiled);
  return compiled;
}

function compileUncached(pattern: string, flags: string): Compiled {
  // Checked before translating: re2js's translation turns `\k<name>` into the literal `k<name>`.
  const problem = linearSyntaxProblem(pattern);
  if (problem) throw new RegexUnsupportedError(pattern, linearSyntaxMessage(pattern, problem));
  try {
    // JSONata adds `g` (it iterates with lastIndex); Ajv passes `u` (RE2 reads code points either way).
    const inline = [...new Set(flags.replace(/[^ims]/g, ''))].join('');
    const source = RE2JS.translateRegExp(pattern);
    return RE2JS.compile(inline === '' ? source : `(?${inline})${source}`);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new RegexUnsupportedError(
      pattern,
      `the pattern ${JSON.stringify(pattern)} cannot run in the linear-time regex engine: ${reason}`,
      { cause },
    );
  }
}

/**
 * JSONata's `RegexEngine` option (jsonata-js 2.2: `new RegexEngine(literal)`, then `lastIndex` and `exec` as a
 * global RegExp behaves), over RE2. Indices are UTF-16 code units, as JavaScript's.
 */
export class LinearRegExp {
  lastIndex = 0;
  readonly #compiled: Compiled;
  constructor(literal: RegExp) {
    this.#compiled = compileLinear(literal.source, literal.flags);
  }
  exec(text: string): RegExpExecArray | null {
    const matcher = this.#compiled.matcher(text);
    if (this.lastIndex > text.length || !matcher.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const groups = Array.from({ length: matcher.groupCount() + 1 }, (_, index) => {
      const group = matcher.group(index);
      return group === null ? undefined : group;
    });
    this.lastIndex = matcher.end();
    return Object.assign(groups as unknown as RegExpExecArray, { index: matcher.start(), input: text });
  }
}

/**
 * Ajv's `code.regExp` (https://ajv.js.org/options.html#code): `pattern` and `patternProperties` over RE2.
 * `code` is what Ajv's standalone code would import; this runtime never generates standalone code.
 */
export const linearPatterns: PatternEngine = Object.assign(
  (pattern: string, flags: string): PatternTester => {
    const compiled = compileLinear(pattern, flags);
    return { test: (text: string) => compiled.test(text), toString: () => `/${pattern}/${flags}` };
  },
  { code: 'linearPatterns' },
);
