/**
 * What a linear-time engine (RE2, shared/regex/linear.ts) cannot run, read from a JavaScript pattern without
 * loading the engine: the save check uses this, so the WorkflowWrite bundle does not carry RE2's ~150 KB.
 * RE2 refuses, by design (https://github.com/google/re2/wiki/Syntax), the constructs that need backtracking:
 * backreferences (`\1`, `\k<name>`), lookahead and lookbehind (`(?=`, `(?!`, `(?<=`, `(?<!`), and counted
 * repetition over 1000 (`a{1001}`). A pattern this check passes that the engine still refuses (rarer syntax
 * such as `\p{Script=Greek}`) fails closed where it runs, with the engine's reason.
 */

/** RE2's largest repeat count (re2/parse.cc, `kMaxRepeat`). */
export const MAX_REPEAT = 1000;

const LOOKAROUND: Record<string, string> = {
  '(?=': 'a lookahead (?=…)',
  '(?!': 'a negative lookahead (?!…)',
  '(?<=': 'a lookbehind (?<=…)',
  '(?<!': 'a negative lookbehind (?<!…)',
};

/** After `\`: how many characters the escape spans, and what it is if the engine cannot run it. */
function escapeAt(source: string, at: number, inClass: boolean): { length: number; problem?: string } {
  const next = source[at + 1] ?? '';
  if (!inClass && next >= '1' && next <= '9') return { length: 2, problem: `a backreference (\\${next})` };
  if (!inClass && next === 'k' && source[at + 2] === '<')
    return { length: 3, problem: 'a backreference (\\k<…>)' };
  if (inClass && next === 'b') return { length: 2, problem: 'a backspace escape in a class ([\\b])' };
  // `\p{…}`, `\P{…}` and `\u{…}` carry braces that are not a repetition.
  if ('pPu'.includes(next) && source[at + 2] === '{') {
    const close = source.indexOf('}', at + 3);
    const length = close < 0 ? 2 : close - at + 1;
    const body = close < 0 ? '' : source.slice(at + 3, close);
    return next !== 'u' && body.includes('=')
      ? { length, problem: `a Unicode property with a value (\\${next}{${body}})` }
      : { length };
  }
  return { length: 2 };
}

/** A counted repetition `{n}`, `{n,}` or `{n,m}` at `at`: its length and largest count; else undefined. */
function repetitionAt(source: string, at: number): { length: number; count: number } | undefined {
  const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at, at + 24));
  if (!match) return undefined;
  const counts = [match[1], match[3]].filter((count) => count !== undefined && count !== '');
  return { length: match[0].length, count: Math.max(...counts.map(Number)) };
}

/**
 * Why a linear-time engine cannot run this JavaScript pattern (a phrase such as "a backreference (\\1)"), or
 * undefined when nothing in it needs backtracking. The pattern is assumed to be one JavaScript accepts.
 */
export function linearSyntaxProblem(source: string): string | undefined {
  // RE2 bounds the product of nested counts too (`(a{100}){100}`): each open group keeps its largest product.
  const groups = [1];
  let lastGroup = 1;
  let afterGroup = false;
  let inClass = false;
  for (let at = 0; at < source.length; ) {
    const char = source[at];
    const wasAfterGroup = afterGroup;
    afterGroup = false;
    if (char === '\\') {
      const escaped = escapeAt(source, at, inClass);
      if (escaped.problem) return escaped.problem;
      at += escaped.length;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      at += 1;
      continue;
    }
    if (char === '[') {
      inClass = true;
      // A `]` right after `[` or `[^` is JavaScript's empty class (`[]`, `[^]`), closed at once.
      at += source[at + 1] === '^' ? 2 : 1;
      if (source[at] === ']') inClass = false;
      at += inClass ? 0 : 1;
      continue;
    }
    if (char === '(') {
      const opener = Object.keys(LOOKAROUND).find((prefix) => source.startsWith(prefix, at));
      if (opener) return LOOKAROUND[opener];
      groups.push(1);
    } else if (char === ')' && groups.length > 1) {
      lastGroup = groups.pop() ?? 1;
      const parent = groups.length - 1;
      groups[parent] = Math.max(groups[parent] ?? 1, lastGroup);
      afterGroup = true;
    } else if (char === '{') {
      const repetition = repetitionAt(source, at);
      if (repetition) {
        const product = repetition.count * (wasAfterGroup ? lastGroup : 1);
        if (product > MAX_REPEAT)
          return `a repetition of more than ${MAX_REPEAT} in all ({${repetition.count}}${wasAfterGroup ? ' around a repeated group' : ''})`;
        const depth = groups.length - 1;
        groups[depth] = Math.max(groups[depth] ?? 1, product);
        at += repetition.length;
        continue;
      }
    }
    at += 1;
  }
  return undefined;
}

const WHY =
  'which the linear-time regex engine cannot run (no input may make a pattern backtrack without end)';

/** The sentence a refusal of a pattern uses: what it uses, and why that is refused. */
export const linearSyntaxMessage = (pattern: string, problem: string): string =>
  `the pattern ${JSON.stringify(pattern)} uses ${problem}, ${WHY}`;

/** The same, said of the schema or form that holds the pattern ("the form uses …"). */
export const schemaPatternMessage = (pattern: string, problem: string): string =>
  `uses the pattern ${JSON.stringify(pattern)}, with ${problem}, ${WHY}`;
