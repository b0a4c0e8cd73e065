import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  compileExpression,
  compileTemplate,
  dataReferences,
  EXPRESSION_LIMITS,
  evaluateCondition,
  evaluateExpression,
  renderText,
  renderValue,
} from '../../shared/graph/index.ts';

const data = {
  input: { message: 'refund please', tags: ['a', 'b'] },
  steps: { triage: { status: 'succeeded', output: { amount: 150, reason: 'broken', customerId: 'c1' } } },
};

const compiled = (source: string) => {
  const result = compileExpression(source);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
};

describe('compileExpression', () => {
  it.each([
    ['input.(', 'S0203'],
    ['', 'GRAPH_EMPTY'],
    ['$now() > "2026"', 'GRAPH_FORBIDDEN_FUNCTION'],
    ['$random() > 0.5', 'GRAPH_FORBIDDEN_FUNCTION'],
    ['$shuffle([1, 2, 3])[0] = 1', 'GRAPH_FORBIDDEN_FUNCTION'],
    ['$eval("1+1") = 2', 'GRAPH_FORBIDDEN_FUNCTION'],
    ['x'.repeat(2001), 'GRAPH_TOO_LONG'],
    ['$__concat("a", "b")', 'GRAPH_FORBIDDEN_FUNCTION'],
  ])('refuses %j with %s, as data', (source, code) => {
    const result = compileExpression(source);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe(code);
  });
});

describe('evaluateExpression bounds', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });
  it('stops an endless recursion with a depth error, not a hang', async () => {
    const result = await evaluateExpression(compiled('($f := function($n){ $f($n + 1) + 1 }; $f(0))'), {});
    expect(result).toMatchObject({ ok: false, error: { code: 'D1011' } });
  });
  // Neither meets the depth or sequence bounds (JSONata runs a tail call as a thunk, so the depth does not grow):
  // only the step count stops them. Before, a 250 ms wall-clock timeout (D1012) did, after however many steps the
  // machine managed.
  it.each([
    ['an endless tail recursion', '($f := function($n){ $f($n + 1) }; $f(0))'],
    [
      'a huge nested $map',
      '$sum($map([1..9999], function($v){ $sum($map([1..9999], function($w){ $w })) }))',
    ],
  ])('stops %s at the step budget, with the same error every time', async (_name, source) => {
    const expression = compiled(source);
    const first = await evaluateExpression(expression, {});
    expect(first).toMatchObject({
      ok: false,
      error: {
        code: 'GRAPH_TOO_MANY_STEPS',
        message: `the expression took more than ${EXPRESSION_LIMITS.maxSteps} evaluation steps`,
      },
    });
    expect(await evaluateExpression(expression, {})).toEqual(first);
  });
  // Each evaluation counts its own steps: two at once of one compiled expression (~150,000 steps each, twice
  // that is over the budget) both finish.
  it('counts the steps of concurrent evaluations apart', async () => {
    const rounds = (n: number) =>
      compiled(`$sum($map([1..${n}], function($i){ $sum($map([1..1000], function($w){ $w })) }))`);
    expect(await evaluateExpression(rounds(300), {})).toMatchObject({
      ok: false,
      error: { code: 'GRAPH_TOO_MANY_STEPS' },
    });
    const half = rounds(150);
    expect(await Promise.all([evaluateExpression(half, {}), evaluateExpression(half, {})])).toEqual([
      { ok: true, value: 75_075_000 },
      { ok: true, value: 75_075_000 },
    ]);
  });
  // Re-evaluating a condition after a crash must give the same answer: no bound that a harmless condition can
  // meet may depend on how fast the machine is (a loaded CI runner, a throttled Lambda). Here every reading of
  // the clock (one per step) is a millisecond after the last — this machine's step (~1 µs) a thousand times
  // slower — over ~1,800 steps. Before, the 250 ms timeout made this D1012 after 250 steps.
  it('gives the same answer however slow the machine is', async () => {
    const source =
      '$count($filter([1..300], function($v){ $v % 7 = 0 })) = 42 and steps.triage.output.amount > 100';
    const expression = compiled(source);
    const fast = await evaluateCondition(expression, data);
    expect(fast).toEqual({ ok: true, value: true });
    let now = performance.now();
    vi.spyOn(Date, 'now').mockImplementation(() => (now += 1));
    vi.spyOn(performance, 'now').mockImplementation(() => (now += 1));
    expect(await evaluateCondition(expression, data)).toEqual(fast);
    expect(vi.mocked(performance.now).mock.calls.length).toBeGreaterThan(1000);
  });
  // The one bound left on time: a backstop far past the step budget, for runaways of heavy steps only, with a
  // code of its own. It counts this thread's CPU, read only once the monotonic clock says the CPU could have run
  // it out.
  it('keeps a CPU-time backstop, told apart from the step budget', async () => {
    let now = performance.now();
    let cpu = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (now += EXPRESSION_LIMITS.backstopCpuMs));
    // Each reading of this thread's CPU time is a whole backstop after the last.
    vi.spyOn(process, 'threadCpuUsage').mockImplementation(() => {
      cpu += EXPRESSION_LIMITS.backstopCpuMs * 1000;
      return { user: cpu, system: 0 };
    });
    const result = await evaluateExpression(compiled('$count([1..10])'), {});
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: 'GRAPH_TOO_MUCH_CPU',
        message: expect.stringMatching(
          new RegExp(`^the expression ran more than ${EXPRESSION_LIMITS.backstopCpuMs} ms of CPU `),
        ),
      },
    });
  });
  // A starved CPU (a loaded CI runner, a Lambda's CPU share) is not the expression's doing: the clock runs on
  // while the evaluation waits for a core. Here every reading of the clock is a minute after the last, the CPU
  // as it is, and a runaway still stops at the step budget, the same error as on a quiet machine. Before, the
  // 5 s wall-clock backstop (JSONata's D1012) fired first, as it did for a 149,000-step condition at load ~20.
  it('meets the step budget before the backstop however starved the CPU', async () => {
    const runaway = compiled('($f := function($n){ $f($n + 1) }; $f(0))');
    const quiet = await evaluateExpression(runaway, {});
    expect(quiet).toMatchObject({ ok: false, error: { code: 'GRAPH_TOO_MANY_STEPS' } });
    let now = performance.now();
    // Both clocks, the wall clock JSONata's own timeout read and the monotonic one the backstop reads.
    vi.spyOn(Date, 'now').mockImplementation(() => (now += 60_000));
    vi.spyOn(performance, 'now').mockImplementation(() => (now += 60_000));
    expect(await evaluateExpression(runaway, {})).toEqual(quiet);
    expect(vi.mocked(performance.now).mock.calls.length).toBeGreaterThan(EXPRESSION_LIMITS.maxSteps);
  });
  it('stops a huge sequence', async () => {
    const result = await evaluateExpression(compiled('$count([1..1000000])'), {});
    expect(result).toMatchObject({ ok: false, error: { code: 'D2015' } });
  });
  it('refuses a result over the size cap', async () => {
    const result = await evaluateExpression(compiled('$pad("", 70000, "x")'), {});
    expect(result).toMatchObject({ ok: false, error: { code: 'GRAPH_RESULT_TOO_LARGE' } });
  });
  // Before: each of these was one evaluation step, past JSONata's between-step checks (the doubling took 15 s
  // and 2.4 GB, then a RangeError; a graph function has 512 MB).
  it.each([
    [
      'a string doubled by &',
      `($s := "${'x'.repeat(100)}"; ${Array(24).fill('$s := $s & $s').join('; ')}; $length($s))`,
    ],
    ['a huge $pad', '$pad("x", 200000000)'],
    [
      '$string of an object sharing sub-objects',
      `($o := {"k": "v"}; ${Array(40).fill('$o := {"l": $o, "r": $o}').join('; ')}; $string($o))`,
    ],
    ['a huge $replace', '$replace($pad("", 100000, "a"), "a", $pad("", 1000, "b"))'],
  ])('refuses %s before making it, with a bound code', async (_name, source) => {
    const result = await evaluateExpression(compiled(source), {});
    expect(result).toMatchObject({ ok: false, error: { code: 'GRAPH_VALUE_TOO_LARGE' } });
  });
  it('refuses a result sharing sub-objects without serializing it', async () => {
    const source = `($o := {"k": "v"}; ${Array(40).fill('$o := {"l": $o, "r": $o}').join('; ')}; $o)`;
    const result = await evaluateExpression(compiled(source), {});
    expect(result).toMatchObject({ ok: false, error: { code: 'GRAPH_RESULT_TOO_LARGE' } });
  });
  it('keeps & as JSONata joins values, and partial application of a bounded built-in', async () => {
    expect(await evaluateExpression(compiled('"a" & 1 & true & {"x": 1} & nothing'), {})).toEqual({
      ok: true,
      value: 'a1true{"x":1}',
    });
    expect(await evaluateExpression(compiled('$pad(?, 4, "-")("ab")'), {})).toEqual({
      ok: true,
      value: 'ab--',
    });
  });
  it('refuses run data over the size cap', async () => {
    const result = await evaluateExpression(compiled('input'), { input: 'x'.repeat(600_000) });
    expect(result).toMatchObject({ ok: false, error: { code: 'GRAPH_INPUT_TOO_LARGE' } });
  });
});

describe('evaluateCondition', () => {
  it.each([
    ['steps.triage.output.amount > 100', true],
    ['steps.triage.output.amount <= 100', false],
    ['steps.review.output.approved', false],
    ['steps.triage.status = "succeeded"', true],
  ])('%s is %s', async (source, expected) => {
    expect(await evaluateCondition(compiled(source), data)).toEqual({ ok: true, value: expected });
  });
  it('refuses a non-boolean result rather than guessing', async () => {
    const result = await evaluateCondition(compiled('steps.triage.output.amount'), data);
    expect(result).toMatchObject({ ok: false, error: { code: 'GRAPH_NOT_BOOLEAN' } });
  });
});

describe('dataReferences', () => {
  it('lists root reads and ignores names relative to a filter or lambda', () => {
    const ast = compiled(
      '$count(steps.a.output.items[price > 3]) > 0 and input.x = $$.input.y and $map(input.z, function($v){ $v.w })',
    ).ast;
    expect(dataReferences(ast).map((ref) => ref.names.join('.'))).toEqual([
      'steps.a.output.items',
      'input.x',
      'input.y',
      'input.z',
    ]);
  });
});

describe('templates', () => {
  it('renders text with strings as is and other values as JSON', async () => {
    const text = await renderText(
      'Customer {{ steps.triage.output.customerId }} asks {{ input.tags }}{{ input.none }}.',
      data,
    );
    expect(text).toEqual({ ok: true, value: 'Customer c1 asks ["a","b"].' });
  });
  it('keeps the JSON type of a value that is exactly one placeholder', async () => {
    const args = {
      amount: '{{ steps.triage.output.amount }}',
      note: 'for {{ steps.triage.output.amount }}',
      list: ['{{ input.tags }}'],
    };
    expect(await renderValue(args, data)).toEqual({
      ok: true,
      value: { amount: 150, note: 'for 150', list: [['a', 'b']] },
    });
  });
  it.each([
    ['Hello {{ input.( }}', 'S0203'],
    ['Hello {{ input.name', 'GRAPH_UNCLOSED'],
    ['{{ }}', 'GRAPH_EMPTY'],
  ])('refuses %j', (text, code) => {
    const result = compileTemplate(text);
    expect(result).toMatchObject({ ok: false, error: { code } });
  });
});
