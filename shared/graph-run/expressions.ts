/**
 * Conditions and templates over the run data, in JSONata. The graph-run side's adapter: when
 * shared/graph/expressions.ts and template.ts (h/graph-def, bounded evaluation) are merged, these delegate there.
 */
import jsonata from 'jsonata';
import type { RunData } from './run-data.ts';

/** Only a JSONata `true` fires an edge: a missing field, a non-boolean or an evaluation error does not. */
export async function evaluateCondition(expression: string, data: RunData): Promise<boolean> {
  try {
    return (await jsonata(expression).evaluate(data)) === true;
  } catch {
    return false;
  }
}

const PLACEHOLDER = /\{\{\s*([\s\S]+?)\s*\}\}/g;
const WHOLE = /^\{\{\s*([\s\S]+?)\s*\}\}$/;

/** A template string: one whole `{{ … }}` keeps the value's type; otherwise each placeholder becomes text. */
export async function renderTemplate(template: string, data: RunData): Promise<unknown> {
  const whole = WHOLE.exec(template);
  if (whole?.[1] !== undefined && !whole[1].includes('}}')) return jsonata(whole[1]).evaluate(data);
  let out = '';
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const value = await jsonata(match[1] ?? '').evaluate(data);
    out +=
      template.slice(last, match.index) + (typeof value === 'string' ? value : JSON.stringify(value ?? null));
    last = (match.index ?? 0) + match[0].length;
  }
  return out + template.slice(last);
}

/** Service arguments: every string value (at any depth) is a template. */
export async function renderArgs(value: unknown, data: RunData): Promise<unknown> {
  if (typeof value === 'string') return renderTemplate(value, data);
  if (Array.isArray(value)) return Promise.all(value.map((each) => renderArgs(each, data)));
  if (value !== null && typeof value === 'object') {
    const entries = await Promise.all(
      Object.entries(value).map(async ([key, each]) => [key, await renderArgs(each, data)] as const),
    );
    return Object.fromEntries(entries);
  }
  return value;
}
