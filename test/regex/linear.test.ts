/**
 * Owners' regexes run on RE2 (shared/regex) where untrusted text meets them: JSONata regex literals and JSON
 * Schema patterns. Each catastrophic case counts V8 RegExp executions of the owner's pattern (zero: the
 * backtracking engine never sees it) rather than timing anything; a backtracking engine would have run it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileExpression, evaluateExpression, readiness } from '../../shared/graph/index.ts';
import { parseStructuredOutput } from '../../shared/graph-run/structured-output.ts';
import { readSubmission } from '../../shared/human-tasks/submission.ts';
import { compileLinear, RegexUnsupportedError } from '../../shared/regex/linear.ts';
import { linearSyntaxProblem } from '../../shared/regex/syntax.ts';

const CATASTROPHIC = '(a+)+$';
// Long enough that V8 backtracks ~4 million times, short enough that the count below, not a hang, shows it.
const ATTACK = `${'a'.repeat(22)}!`;

/** Counts V8 RegExp executions (exec / test) of `source` from now on. */
function nativeRuns(source: string): () => number {
  let runs = 0;
  const exec = RegExp.prototype.exec;
  vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, text: string) {
    if (this.source === source) runs += 1;
    return exec.call(this, text);
  });
  return () => runs;
}
afterEach(() => vi.restoreAllMocks());

const evaluate = async (source: string, data: unknown = {}) => {
  const compiled = compileExpression(source);
  if (!compiled.ok) throw new Error(compiled.error.message);
  return evaluateExpression(compiled.value, data);
};

describe('linearSyntaxProblem agrees with the engine', () => {
  it.each([
    ['(a)\\1', 'a backreference (\\1)'],
    ['(?<n>a)\\k<n>', 'a backreference (\\k<…>)'],
    ['a(?=b)', 'a lookahead (?=…)'],
    ['a(?!b)', 'a negative lookahead (?!…)'],
    ['(?<=a)b', 'a lookbehind (?<=…)'],
    ['(?<!a)b', 'a negative lookbehind (?<!…)'],
    ['a{1001}', 'a repetition of more than 1000 in all ({1001})'],
    ['(a{100}){11}', 'a repetition of more than 1000 in all ({11} around a repeated group)'],
    ['[\\b]', 'a backspace escape in a class ([\\b])'],
    ['\\p{Script=Greek}', 'a Unicode property with a value (\\p{Script=Greek})'],
  ])('refuses %j (%s), and so does RE2', (pattern, problem) => {
    expect(linearSyntaxProblem(pattern)).toBe(problem);
    expect(() => compileLinear(pattern, 'u')).toThrow(RegexUnsupportedError);
  });
  it.each([
    CATASTROPHIC,
    '^[A-Z]{2}-\\d{4}$',
    '\\p{L}+',
    '(?<year>\\d{4})-(?:\\d{2})',
    '[^]',
    'a{2,1000}',
    '(a{10}){100}',
    '[(?=]\\\\1',
    '\\u{1F600}',
    '^\\S+@\\S+$',
  ])('passes %j, which RE2 runs', (pattern) => {
    expect(linearSyntaxProblem(pattern)).toBeUndefined();
    expect(() => compileLinear(pattern, 'u')).not.toThrow();
  });
});

describe('JSONata regex literals', () => {
  it('runs a catastrophic literal over step output without V8 backtracking', async () => {
    const runs = nativeRuns(CATASTROPHIC);

    const result = await evaluate(`$contains(input.text, /${CATASTROPHIC}/)`, { input: { text: ATTACK } });

    expect(result).toEqual({ ok: true, value: false });
    expect(runs()).toBe(0);
  });

  it('keeps $match, $replace, $split and $contains as JavaScript answers them (UTF-16 indices)', async () => {
    const text = '😀 order A-12, order b-345';
    const match = await evaluate('$match(input.t, /([a-z])-(\\d+)/i)', { input: { t: text } });
    expect(match).toEqual({
      ok: true,
      value: [
        { match: 'A-12', index: 9, groups: ['A', '12'] },
        { match: 'b-345', index: 21, groups: ['b', '345'] },
      ],
    });
    expect(await evaluate('$replace("a-b--c", /-+/, "+")')).toEqual({ ok: true, value: 'a+b+c' });
    expect(await evaluate('$replace("2026-12-02", /(\\d+)-(\\d+)-(\\d+)/, "$3.$2.$1")')).toEqual({
      ok: true,
      value: '02.12.2026',
    });
    expect(await evaluate('$split("a1b22c", /\\d+/)')).toEqual({ ok: true, value: ['a', 'b', 'c'] });
    expect(await evaluate('$contains("Hello", /^hel/i)')).toEqual({ ok: true, value: true });
    expect(await evaluate('$contains("x\\nHello", /^hel/im)')).toEqual({ ok: true, value: true });
  });

  it('refuses a literal RE2 cannot run when compiling, at its position', () => {
    const result = compileExpression('$contains(input.text, /(a)\\1/)');

    expect(result).toMatchObject({
      ok: false,
      error: { code: 'GRAPH_REGEX_UNSUPPORTED', position: expect.any(Number) },
    });
  });

  it('fails an edge saved before that check closed, naming the edge, instead of running it', async () => {
    const graph = {
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'a', type: 'service_task' },
        { id: 'end', type: 'end' },
      ],
      edges: [
        { from: 'start', to: 'a', when: '$contains(input.text, /(a+)\\1$/)' },
        { from: 'a', to: 'end' },
      ],
    } as Parameters<typeof readiness>[0];

    const result = await readiness(graph, {
      input: { text: 'aa' },
      steps: { start: { status: 'succeeded' } },
    });

    expect(result).toMatchObject({ ready: [], outcome: 'failed', halt: { reason: 'condition_error' } });
    expect(result.conditionErrors).toMatchObject([
      {
        edge: 0,
        error: { code: 'GRAPH_REGEX_UNSUPPORTED', message: expect.stringContaining('backreference') },
      },
    ]);
  });
});

describe('JSON Schema patterns at run time', () => {
  const schema = (pattern: string) => ({
    type: 'object',
    properties: { code: { type: 'string', pattern } },
    patternProperties: { [`^x-${pattern}`]: { type: 'string' } },
  });

  it("judges a model's output against a catastrophic pattern without V8 backtracking", () => {
    const runs = nativeRuns(CATASTROPHIC);

    const parsed = parseStructuredOutput(
      JSON.stringify({ code: ATTACK, [`x-${ATTACK}`]: 1 }),
      schema(CATASTROPHIC),
    );

    expect(parsed).toMatchObject({ ok: false, reason: expect.stringContaining('/code must match pattern') });
    expect(runs()).toBe(0);
  });

  it("judges a person's form submission the same way, and ordinary patterns still match", () => {
    const form = { type: 'object', properties: { code: { type: 'string', pattern: CATASTROPHIC } } };
    const runs = nativeRuns(CATASTROPHIC);

    const refused = readSubmission(form, () => [ATTACK]);
    const accepted = readSubmission(form, () => ['aaaa']);

    expect(refused).toMatchObject({
      ok: false,
      errors: { code: expect.stringContaining('must match pattern') },
    });
    expect(accepted).toEqual({ ok: true, values: { code: 'aaaa' } });
    expect(runs()).toBe(0);
  });

  it('fails closed on an output schema saved with a pattern RE2 cannot run', () => {
    const parsed = parseStructuredOutput('{"code":"aa"}', schema('(a)\\1'));

    expect(parsed).toMatchObject({ ok: false, reason: expect.stringContaining('backreference') });
  });
});
