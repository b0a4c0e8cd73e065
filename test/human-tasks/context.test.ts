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
});
