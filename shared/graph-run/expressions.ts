/**
 * Templates over the run data for the executor: the bounded JSONata of shared/graph (template.ts), with a
 * render error turned into a thrown `TemplateRenderError` that names the node, so the step fails with it.
 */
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

/** An agent prompt: always text. */
export const renderPrompt = async (where: string, template: string, data: RunData): Promise<string> =>
  orThrow(where, await renderText(template, data));

/** Service arguments (and context paths): every string at any depth is a template; a whole `{{ }}` keeps its type. */
export const renderArgs = async (where: string, value: unknown, data: RunData): Promise<unknown> =>
  orThrow(where, await renderValue(value, data));
