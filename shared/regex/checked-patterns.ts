/**
 * Ajv's `code.regExp` for schemas that are judged, not run over untrusted data (the save check): a pattern the
 * linear-time engine cannot run is refused when the schema compiles, naming what it uses; a pattern is never
 * executed here (this bundle does not carry the engine, and V8's backtracking engine is what ReDoS exploits),
 * so a validator compiled with it throws rather than answer for a `pattern`. Run-time validation uses
 * linear.ts's `linearPatterns`.
 */
import { linearSyntaxMessage, linearSyntaxProblem } from './syntax.ts';

/** What Ajv's `code.regExp` makes of a pattern: `test`, and a `toString` Ajv keys its pattern cache by. */
export type PatternTester = { test(text: string): boolean; toString(): string };

/** A schema engine: Ajv calls it with each `pattern` / `patternProperties` key and the flags (`u`). */
export type PatternEngine = ((pattern: string, flags: string) => PatternTester) & { code: string };

/** Refuses what RE2 cannot run; checks the rest with V8's parser (`new RegExp` compiles, it does not match). */
export const checkedPatterns: PatternEngine = Object.assign(
  (pattern: string, flags: string): PatternTester => {
    const problem = linearSyntaxProblem(pattern);
    if (problem) throw new Error(linearSyntaxMessage(pattern, problem));
    new RegExp(pattern, flags);
    return {
      test() {
        throw new Error(`the pattern ${JSON.stringify(pattern)} is checked here, not run`);
      },
      toString: () => `/${pattern}/${flags}`,
    };
  },
  { code: 'checkedPatterns' },
);
