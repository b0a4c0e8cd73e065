/**
 * The run context a human task shows: each `context` path of the node (JSONata over the run data,
 * `{ input, steps }`) evaluated once, when the task is requested, and stored on the record. The page shows this
 * snapshot, so what the assignee sees is what the run knew when it asked, and the page never evaluates anything.
 * Paths run on the graph's bounded evaluator (size limits, RE2 for regex literals), as every other expression
 * over run data: a path is owner-written and the run data holds untrusted step output.
 */
import type { StepAllowance } from '../graph/expression-bounds.ts';
import { compileExpression, evaluateExpression, invocationAllowance } from '../graph/expressions.ts';
import type { ContextValue } from '../schemas/human-task.ts';

/** Larger values are stored as a shortened JSON preview, marked `truncated`. */
export const MAX_CONTEXT_VALUE_CHARS = 4000;

async function evaluate(path: string, runData: unknown, allowance: StepAllowance): Promise<ContextValue> {
  // Paths are checked at save time; one that still fails (or is refused by a bound) shows as nothing rather
  // than failing the request.
  const compiled = compileExpression(path);
  if (!compiled.ok) return { path };
  const result = await evaluateExpression(compiled.value, runData, allowance);
  return result.ok ? contextValue(path, result.value) : { path };
}

/** One context value as stored: JSON data only, shortened past the cap. */
export function contextValue(path: string, value: unknown): ContextValue {
  if (value === undefined) return { path };
  // JSONata sequences carry a marker property; a JSON round-trip keeps only the data.
  const json = JSON.stringify(value);
  if (json === undefined) return { path };
  if (json.length > MAX_CONTEXT_VALUE_CHARS) {
    return { path, value: `${json.slice(0, MAX_CONTEXT_VALUE_CHARS - 1)}…`, truncated: true };
  }
  return { path, value: JSON.parse(json) as unknown };
}

/**
 * The values of `paths` over `runData`, evaluated one after the other, in order, drawing from one allowance
 * (EXPRESSION_LIMITS.maxStepsPerInvocation): a path past it shows as nothing, the same ones for the same data.
 */
export async function snapshotContext(paths: readonly string[], runData: unknown): Promise<ContextValue[]> {
  const allowance = invocationAllowance();
  const values: ContextValue[] = [];
  for (const path of paths) values.push(await evaluate(path, runData, allowance));
  return values;
}

/** Context already evaluated by the caller (path → value), as stored. */
export const contextOf = (values: Record<string, unknown>): ContextValue[] =>
  Object.entries(values).map(([path, value]) => contextValue(path, value));
