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
 * An agent prompt: always text, never blank. Its placeholders draw from `allowance`, the steps all expressions
 * of the invocation may take together (EXPRESSION_LIMITS.maxStepsPerInvocation): pass the invocation's one.
 * The prompt is the child run's first message, and the Messages API refuses a text block that is empty or only
 * whitespace ("text content blocks must be non-empty": docs/scripted-model.md "Request rules"); a blank one
 * fails the step here, naming it, instead of a child run whose every model call is refused.
 */
export async function renderPrompt(
  where: string,
  template: string,
  data: RunData,
  allowance: StepAllowance,
): Promise<string> {
  const prompt = orThrow(where, await renderText(template, data, allowance));
  if (prompt.trim() === '')
    throw new TemplateRenderError(
      `${where}: rendered blank (${JSON.stringify(prompt)}); the Messages API refuses an empty first message`,
    );
  return prompt;
}

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
