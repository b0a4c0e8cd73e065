/**
 * A human task's context paths run on the graph's bounded evaluator: a path that would make a huge value, or a
 * regex literal only a backtracking engine runs, shows as nothing instead of being evaluated without bounds.
 */
import { describe, expect, it } from 'vitest';
import { snapshotContext } from '../../shared/human-tasks/context.ts';

describe('snapshotContext', () => {
  it('evaluates paths within the expression bounds and on the linear-time regex engine', async () => {
    const runData = { input: { message: 'aa', count: 2_000_000 } };
    const context = await snapshotContext(
      ['input.message', '$pad("x", input.count)', '$match(input.message, /(a)\\1/).match'],
      runData,
    );
    expect(context).toEqual([
      { path: 'input.message', value: 'aa' },
      // Unbounded, `$pad` made a 2,000,000-character string (stored truncated).
      { path: '$pad("x", input.count)' },
      // Unbounded, V8 ran the backreference and answered "aa".
      { path: '$match(input.message, /(a)\\1/).match' },
    ]);
  });

  // The paths of one task share one step allowance (EXPRESSION_LIMITS.maxStepsPerInvocation, 300,000), in order:
  // 20 paths of ~151,000 steps each would take ~3,000,000 steps in one HumanTask invocation.
  it('evaluates the paths one after the other from one allowance: those past it show as nothing', async () => {
    const heavy = (n: number) =>
      `$sum($map([1..150], function($v){ $sum($map([1..1000], function($w){ $w })) })) + ${n}`;
    const context = await snapshotContext([heavy(1), heavy(2), 'input.message'], {
      input: { message: 'hi' },
    });
    expect(context).toEqual([
      { path: heavy(1), value: 75_075_001 },
      { path: heavy(2) },
      { path: 'input.message' },
    ]);
  });
});
