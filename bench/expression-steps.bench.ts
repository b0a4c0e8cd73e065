/**
 * npm run bench:expression-steps — how many evaluation steps JSONata expressions take and what a step costs,
 * to size EXPRESSION_LIMITS.maxSteps (shared/graph/expressions.ts). Three tables:
 * - the expressions of the docs, examples and tests, and legitimate heavy ones over the largest data the bounds
 *   let through (10,000 items, the sequence cap; ~350 KB, under the 512 KB input cap): steps each;
 * - runaway expressions: where and after how much CPU they stop;
 * - the costliest steps: a loop of one heavy built-in call each, CPU µs per step (what the step budget times
 *   the worst step costs bounds an evaluation to);
 * - the largest readiness() the definition limits allow, every condition near the per-expression cap: where
 *   the per-invocation allowance (EXPRESSION_LIMITS.maxStepsPerInvocation) stops it and after how much CPU.
 * CPU ms is the process's user + system time (process.cpuUsage), the median of ROUNDS evaluations. Prints
 * tables; asserts nothing. The machine may be shared: quote `uptime` with the numbers.
 */
import { boundedBindings } from '../shared/graph/expression-bounds.ts';
import {
  compileExpression,
  EXPRESSION_LIMITS,
  evaluateExpression,
  type GraphShape,
  readiness,
  StepAllowance,
} from '../shared/graph/index.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const items = Array.from({ length: 10_000 }, (_, i) => ({ price: i % 50, qty: 1 + (i % 3), sku: `s${i}` }));
const data = {
  input: { message: 'refund please', amount: 150, tags: ['a', 'b'], x: 1, y: 1, z: [{ w: 1 }] },
  steps: {
    triage: { status: 'succeeded', output: { amount: 150, reason: 'damaged', customerId: 'c_1' } },
    manager_review: { status: 'succeeded', output: { approve: true } },
    a: { status: 'succeeded', output: { items } },
  },
};

type Measured = { steps: number; cpuMs: number; wallMs: number; outcome: string };

async function measure(source: string): Promise<Measured> {
  const compiled = compileExpression(source);
  if (!compiled.ok) throw new Error(`${source}: ${compiled.error.message}`);
  // The real path first (binds RE2 for regex literals), then the same evaluation with its step tally read back.
  const result = await evaluateExpression(compiled.value, data);
  const outcome = result.ok ? 'ok' : result.error.code;
  const cpu: number[] = [];
  const wall: number[] = [];
  let steps = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const bindings = await boundedBindings(EXPRESSION_LIMITS.backstopCpuMs);
    const start = process.cpuUsage();
    const began = performance.now();
    try {
      await compiled.value.run.evaluate(data, bindings);
    } catch {
      // the outcome is the real path's, above
    }
    wall.push(performance.now() - began);
    const used = process.cpuUsage(start);
    cpu.push((used.user + used.system) / 1000);
    steps = (bindings.__bounds as { steps: number }).steps;
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  return { steps, cpuMs: median(cpu), wallMs: median(wall), outcome };
}

const legitimate = [
  'steps.triage.output.amount > 100',
  'steps.triage.output.amount <= 100',
  'steps.manager_review.output.approve = true',
  'steps.manager_review.output.approve != true',
  'input.message',
  'steps.triage.output.customerId',
  '$count(steps.a.output.items[price > 3]) > 0 and input.x = $$.input.y and $map(input.z, function($v){ $v.w })',
  // over 10,000 items
  '$count(steps.a.output.items[price > 3 and qty >= 2]) > 100',
  '$sum(steps.a.output.items.(price * qty)) > 1000',
  '$count($filter(steps.a.output.items, function($i){ $i.price > 10 and $contains($i.sku, "9") })) > 0',
  '$reduce(steps.a.output.items, function($acc, $i){ $acc + $i.price * $i.qty }, 0) > 1000',
  '$count(steps.a.output.items{sku: price}.*) = 10000',
  '$max(steps.a.output.items.price) < 100 and $average(steps.a.output.items.qty) > 1',
];

const runaway = [
  '($f := function($n){ $f($n + 1) }; $f(0))',
  '($f := function($n){ $f($n + 1) + 1 }; $f(0))',
  '$sum($map([1..9999], function($v){ $sum($map([1..9999], function($w){ $w })) }))',
  '$reduce([1..9999], function($a, $v){ $a + $count($filter([1..9999], function($w){ $w = $v })) }, 0)',
  // heavy steps: an RE2 scan of 1M characters per iteration, ~5 steps each; only the wall-clock backstop stops it
  '($big := $pad("", 999999, "a"); $count($filter([1..9999], function($i){ $contains($big, /ab/) })))',
];

/** A loop of N iterations, each one heavy call over `$big` (1M characters) or `$arr` (9,999 items). */
const N = 200;
const heavyStep = (call: string) =>
  `($big := $pad("", 999999, "a"); $arr := [1..9999]; $obj := $merge($map([1..9999], function($i){ {"k" & $i: $i} })); $sum($map([1..${N}], function($i){ ${call} ? 1 : 0 })))`;
const heavy = [
  'true',
  '$contains($big, /ab/)',
  '$contains($big, "b")',
  '$big = $big',
  '$big < $big',
  '$length($trim($big)) > 0',
  '$count($distinct($arr)) > 0',
  '$count($sort($arr)) > 0',
  '$count($keys($merge([$obj, $obj]))) > 0',
  '$exists($lookup($clone($obj), "k1"))',
  '$exists($lookup($obj, "k1"))',
  '"k1" in $keys($obj)',
  '$exists($spread($obj)[0])',
];

const rows = async (sources: string[], label: (s: string) => string) => {
  const out: Record<string, string | number>[] = [];
  for (const source of sources) {
    const m = await measure(source);
    out.push({
      expression: label(source).slice(0, 90),
      outcome: m.outcome,
      steps: m.steps,
      'CPU ms': Number(m.cpuMs.toFixed(1)),
      'wall ms': Number(m.wallMs.toFixed(1)),
      'CPU µs/step': Number(((m.cpuMs * 1000) / Math.max(m.steps, 1)).toFixed(2)),
    });
  }
  return out;
};

console.log(`maxSteps ${EXPRESSION_LIMITS.maxSteps}; ${ROUNDS} rounds, median CPU`);
console.log('\nexpressions of the docs, examples and tests; legitimate heavy ones over 10,000 items');
console.table(await rows(legitimate, (s) => s));
console.log('\nrunaway expressions');
console.table(await rows(runaway, (s) => s));
// Per heavy call: the loop's CPU less the baseline loop's, over N; steps likewise.
const base = await measure(heavyStep('true'));
const perCall: Record<string, string | number>[] = [];
for (const call of heavy) {
  const m = await measure(heavyStep(call));
  const cpuUs = ((m.cpuMs - base.cpuMs) * 1000) / N;
  const steps = (m.steps - base.steps) / N;
  perCall.push({
    'call, once per iteration': call,
    outcome: m.outcome,
    'steps/call': steps,
    'CPU µs/call': Number(cpuUs.toFixed(1)),
    'CPU µs/step': Number((cpuUs / Math.max(steps, 1)).toFixed(1)),
  });
}
console.log(
  `\nthe costliest steps (a loop of ${N}, less the loop's own ${base.steps} steps, ${base.cpuMs.toFixed(1)} ms)`,
);
console.table(perCall);

// 75 steps after start, 4 conditional edges out of each to the end (375 edges of the 400 allowed), every
// condition ~242,000 steps (false, so no two alternatives are true together). Without the per-invocation
// allowance this would be 300 × 242,000 steps.
const costly = (k: number) =>
  `$sum($map([1..240], function($v){ $sum($map([1..1000], function($w){ $w })) })) < ${k}`;
const worst: GraphShape = {
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'end', type: 'end' },
  ],
  edges: [],
};
const worstSteps: Record<string, { status: 'succeeded'; output: unknown }> = {
  start: { status: 'succeeded', output: {} },
};
for (let i = 0; i < 75; i++) {
  worst.nodes.push({ id: `s${i}`, type: 'service_task' } as GraphShape['nodes'][number]);
  worst.edges.push({ from: 'start', to: `s${i}` });
  for (let j = 0; j < 4; j++) worst.edges.push({ from: `s${i}`, to: 'end', when: costly(j) });
  worstSteps[`s${i}`] = { status: 'succeeded', output: {} };
}
const allowance = new StepAllowance(EXPRESSION_LIMITS.maxStepsPerInvocation);
const cpuStart = process.cpuUsage();
const found = await readiness(worst, { input: {}, steps: worstSteps }, allowance);
const cpu = process.cpuUsage(cpuStart);
console.log(
  `\nreadiness() over ${worst.edges.length} edges (${worst.edges.filter((e) => e.when).length} conditions of ~242,000 steps each), allowance ${EXPRESSION_LIMITS.maxStepsPerInvocation}`,
);
console.table([
  {
    'stopped at': found.conditionErrors.map((e) => `edges[${e.edge}] ${e.error.code}`).join(', '),
    'steps used': allowance.used,
    'CPU ms': Number(((cpu.user + cpu.system) / 1000).toFixed(1)),
    'CPU µs/step': Number(((cpu.user + cpu.system) / allowance.used).toFixed(2)),
  },
]);
