/**
 * `=`, `!=` and `$distinct` compare deeply inside one evaluation step, where JSONata's guardrails do not look:
 * the bounds size both sides first (a walk that stops at the limit) and cap what `$distinct` compares.
 */
import jsonata from 'jsonata';
import { describe, expect, it } from 'vitest';
import { compileExpression, evaluateExpression } from '../../shared/graph/index.ts';

const evaluate = async (source: string, data: unknown = {}) => {
  const compiled = compileExpression(source);
  if (!compiled.ok) throw new Error(compiled.error.message);
  return evaluateExpression(compiled.value, data);
};

describe('bounded = and !=', () => {
  it.each([
    'input.a = input.b',
    'input.a != input.b',
    'input.a = input.a',
    'input.missing = input.missing',
    'input.missing != 1',
    'input.list = [1, 2, {"k": "v"}]',
    'input.obj = {"y": [true], "x": 1}',
    'input.obj != {"x": 1}',
    '"1" = 1',
    'null = null',
    'input.list[2] = input.obj',
  ])('answers %s as JSONata does', async (source) => {
    const data = { input: { a: 1, b: 2, list: [1, 2, { k: 'v' }], obj: { x: 1, y: [true] } } };

    const expected = await jsonata(source).evaluate(data);

    expect(await evaluate(source, data)).toEqual({ ok: true, value: expected });
  });

  it('refuses to compare values built sharing parts (2^21 nodes) instead of walking them', async () => {
    const result = await evaluate(
      '($d := function($v, $n) { $n = 0 ? $v : $d({"l": $v, "r": $v}, $n - 1) }; $d(1, 21) = $d(1, 21))',
    );

    expect(result).toMatchObject({ ok: false, error: { code: 'GRAPH_VALUE_TOO_LARGE' } });
  });
});

describe('bounded $distinct', () => {
  it('keeps its answers and refuses more items than it may compare pairwise', async () => {
    const items = Array.from({ length: 10_001 }, (_, index) => index);

    expect(await evaluate('$distinct([1, {"a": 1}, 1, {"a": 1}, "1"])')).toEqual({
      ok: true,
      value: [1, { a: 1 }, '1'],
    });
    expect(await evaluate('$count($distinct(input))', { input: items.slice(1) })).toEqual({
      ok: true,
      value: 10_000,
    });
    expect(await evaluate('$distinct(input)', { input: items })).toMatchObject({
      ok: false,
      error: { code: 'GRAPH_VALUE_TOO_LARGE' },
    });
  });
});
