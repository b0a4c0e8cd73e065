/**
 * `$toMillis(text, picture)` matches the text against a regex JSONata builds from the picture. It runs on RE2:
 * counted as V8 RegExp executions of that regex (zero), not timed. Adjacent components without widths
 * (`[f][f][f][f]` is `^([0-9]+)([0-9]+)([0-9]+)([0-9]+)$`) backtrack polynomially in V8 over a long digit string.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compileExpression, evaluateExpression } from '../../shared/graph/index.ts';

/** Counts V8 RegExp executions of patterns `picked` from now on. */
function nativeRuns(picked: (source: string) => boolean): () => number {
  let runs = 0;
  const exec = RegExp.prototype.exec;
  vi.spyOn(RegExp.prototype, 'exec').mockImplementation(function (this: RegExp, text: string) {
    if (picked(this.source)) runs += 1;
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

describe('$toMillis with a picture', () => {
  it('matches the picture on the linear-time engine, not V8, and restores RegExp', async () => {
    const runs = nativeRuns((source) => source.startsWith('^(') && source.includes('[0-9]'));
    // 40 digits then a letter: V8 tries every split of the digits over four groups (~10^4 here, ~n^3 in all).
    const result = await evaluate('$toMillis(text, "[f][f][f][f]")', { text: `${'1'.repeat(40)}x` });
    expect(result).toEqual({ ok: true, value: undefined });
    expect(runs()).toBe(0);
    expect(/a/i).toBeInstanceOf(RegExp);
  });

  it('still parses what JSONata parses: numbers, fixed widths, names and a failed match', async () => {
    expect(await evaluate('$toMillis("2024-03-05 10:11", "[Y]-[M]-[D] [H]:[m]")')).toEqual({
      ok: true,
      value: 1709633460000,
    });
    expect(await evaluate('$toMillis("20240305", "[Y0001][M01][D01]")')).toEqual({
      ok: true,
      value: 1709596800000,
    });
    expect(await evaluate('$toMillis("2024 March 5", "[Y] [MNn] [D]")')).toEqual({
      ok: true,
      value: 1709596800000,
    });
    expect(await evaluate('$toMillis("2024-03-05")')).toEqual({ ok: true, value: 1709596800000 });
    const bad = await evaluate('$toMillis("2024-13", "[Y]-[M]-[D] [H]:[m]")');
    expect(bad).toEqual({ ok: true, value: undefined });
  });
});
