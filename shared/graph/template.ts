/**
 * `{{ expression }}` templates over the run data `{ input, steps: { <nodeId>: { status, output, timedOut? } } }`.
 * Text outside the braces is kept as is; each expression is JSONata (expressions.ts, with its bounds). In text,
 * a string value is inserted as is, an absent value as nothing, anything else as JSON. A value that is exactly
 * one `{{ … }}` (no text around it) keeps its JSON type: `amount: "{{ steps.triage.output.amount }}"` is a
 * number, which is what service_task arguments need.
 */
import type { StepAllowance } from './expression-bounds.ts';
import {
  type CompiledExpression,
  compileExpression,
  type ExpressionError,
  evaluateExpression,
  type Result,
} from './expressions.ts';

export const MAX_TEMPLATE_PLACEHOLDERS = 50;

export type TemplatePart = { text: string } | { expression: CompiledExpression };
/** A parsed template; `whole` when the text is exactly one placeholder. */
export type CompiledTemplate = { parts: TemplatePart[]; whole: boolean };

/** A template error: the expression error, with `placeholder` the 0-based index of the `{{ … }}` at fault. */
export type TemplateError = ExpressionError & { placeholder?: number };

const PLACEHOLDER = /\{\{([\s\S]*?)\}\}/g;

/** Parses a template and compiles each placeholder; never throws. */
export function compileTemplate(
  text: string,
): { ok: true; value: CompiledTemplate } | { ok: false; error: TemplateError } {
  const parts: TemplatePart[] = [];
  let last = 0;
  let placeholder = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    if (placeholder >= MAX_TEMPLATE_PLACEHOLDERS) {
      return {
        ok: false,
        error: {
          code: 'GRAPH_TOO_MANY_PLACEHOLDERS',
          message: `more than ${MAX_TEMPLATE_PLACEHOLDERS} {{ … }} placeholders`,
        },
      };
    }
    if (match.index > last) parts.push({ text: text.slice(last, match.index) });
    const compiled = compileExpression(match[1] ?? '');
    if (!compiled.ok) return { ok: false, error: { ...compiled.error, placeholder } };
    parts.push({ expression: compiled.value });
    last = match.index + match[0].length;
    placeholder += 1;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  const unclosed = parts.some((part) => 'text' in part && part.text.includes('{{'));
  if (unclosed)
    return { ok: false, error: { code: 'GRAPH_UNCLOSED', message: "a '{{' has no matching '}}'" } };
  return { ok: true, value: { parts, whole: parts.length === 1 && 'expression' in parts[0]! } };
}

/** The compiled expressions of a template, in order (what validation checks). */
export const templateExpressions = (template: CompiledTemplate): CompiledExpression[] =>
  template.parts.flatMap((part) => ('expression' in part ? [part.expression] : []));

const asText = (value: unknown): string =>
  value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * Renders a template to a value: the JSON value itself when `whole`, otherwise text. Its placeholders draw
 * from `allowance` when given (the steps all expressions of one invocation may take, expressions.ts).
 */
export async function renderTemplate(
  template: CompiledTemplate,
  data: unknown,
  allowance?: StepAllowance,
): Promise<Result<unknown>> {
  let text = '';
  for (const [index, part] of template.parts.entries()) {
    if ('text' in part) {
      text += part.text;
      continue;
    }
    const result = await evaluateExpression(part.expression, data, allowance);
    if (!result.ok)
      return {
        ok: false,
        error: { ...result.error, message: `placeholder ${index}: ${result.error.message}` },
      };
    if (template.whole) return result;
    text += asText(result.value);
  }
  return { ok: true, value: text };
}

/** Renders a text template (agent prompts): always a string. */
export async function renderText(
  source: string,
  data: unknown,
  allowance?: StepAllowance,
): Promise<Result<string>> {
  const compiled = compileTemplate(source);
  if (!compiled.ok) return compiled;
  const rendered = await renderTemplate({ ...compiled.value, whole: false }, data, allowance);
  return rendered.ok ? { ok: true, value: asText(rendered.value) } : rendered;
}

/**
 * Renders every string inside `value` (service_task args, nested objects and arrays included); a string that
 * is exactly one `{{ … }}` becomes the expression's JSON value. The first error stops the render. Strings are
 * rendered one after the other, in order, so the same value and data run out of an allowance at the same one.
 */
export async function renderValue(
  value: unknown,
  data: unknown,
  allowance?: StepAllowance,
): Promise<Result<unknown>> {
  if (typeof value === 'string') {
    const compiled = compileTemplate(value);
    return compiled.ok ? renderTemplate(compiled.value, data, allowance) : compiled;
  }
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const rendered = await renderValue(item, data, allowance);
      if (!rendered.ok) return rendered;
      out.push(rendered.value);
    }
    return { ok: true, value: out };
  }
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const rendered = await renderValue(item, data, allowance);
      if (!rendered.ok) return rendered;
      if (rendered.value !== undefined) out[key] = rendered.value;
    }
    return { ok: true, value: out };
  }
  return { ok: true, value };
}

/** Every template string inside a value, with its path (for validation of service_task args). */
export function templateStrings(
  value: unknown,
  path: (string | number)[] = [],
): { path: (string | number)[]; text: string }[] {
  if (typeof value === 'string') return value.includes('{{') ? [{ path, text: value }] : [];
  if (Array.isArray(value)) return value.flatMap((item, index) => templateStrings(item, [...path, index]));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => templateStrings(item, [...path, key]));
  }
  return [];
}
