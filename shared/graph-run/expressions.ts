/**
 * Templates over the run data for the executor: the bounded JSONata of shared/graph (template.ts), with a
 * render error turned into a thrown `TemplateRenderError` that names the node, so the step fails with it.
 */
import type { StepAllowance } from '../graph/expression-bounds.ts';
import { renderText, renderValue } from '../graph/template.ts';
import type { RunData } from './run-data.ts';

export class TemplateRenderError extends Error {
  override readonly name = 'TemplateRenderError';
}

const orThrow = <T>(
  where: string,
  result: { ok: true; value: T } | { ok: false; error: { message: string } },
): T => {
  if (!result.ok) throw new TemplateRenderError(`${where}: ${result.error.message}`);
  return result.value;
};

/**
 * An agent prompt: always text. Its placeholders draw from `allowance`, the steps all expressions of the
 * invocation may take together (EXPRESSION_LIMITS.maxStepsPerInvocation): pass the invocation's one.
 */
export const renderPrompt = async (
  where: string,
  template: string,
  data: RunData,
  allowance: StepAllowance,
): Promise<string> => orThrow(where, await renderText(template, data, allowance));

/**
 * Service arguments (and context paths): every string at any depth is a template; a whole `{{ }}` keeps its
 * type. Drawn from `allowance`, as renderPrompt.
 */
export const renderArgs = async (
  where: string,
  value: unknown,
  data: RunData,
  allowance: StepAllowance,
): Promise<unknown> => orThrow(where, await renderValue(value, data, allowance));
