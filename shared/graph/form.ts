/**
 * Human-task forms: a JSON Schema object whose properties are the fields. Only field kinds a page can render
 * and a person can fill are accepted (docs/graph-workflows.md, "Forms"):
 *
 * | kind        | schema                                               |
 * |-------------|------------------------------------------------------|
 * | `text`      | `{ type: string }` (minLength, maxLength, pattern)   |
 * | `long_text` | `{ type: string, format: long-text }` (a text area)  |
 * | `enum`      | `{ type: string, enum: [..strings] }` (a choice)     |
 * | `number`    | `{ type: number }` / `integer` (minimum, maximum …)  |
 * | `boolean`   | `{ type: boolean }` (a checkbox / approve switch)    |
 *
 * Every field may carry `title`, `description` and `default`. The form's `required` lists required fields.
 */
import type { CheckIssue } from '../schemas/action-checks.ts';

export const MAX_FORM_FIELDS = 30;
export const LONG_TEXT_FORMAT = 'long-text';

export type FormFieldKind = 'text' | 'long_text' | 'enum' | 'number' | 'integer' | 'boolean';
export type FormField = {
  name: string;
  kind: FormFieldKind;
  required: boolean;
  title?: string;
  description?: string;
  options?: string[];
};

const ANNOTATIONS = ['title', 'description', 'default'];
const KEYWORDS: Record<string, string[]> = {
  string: ['type', 'minLength', 'maxLength', 'pattern', 'format', 'enum', ...ANNOTATIONS],
  number: [
    'type',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'multipleOf',
    ...ANNOTATIONS,
  ],
  integer: [
    'type',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'multipleOf',
    ...ANNOTATIONS,
  ],
  boolean: ['type', ...ANNOTATIONS],
};
const FORM_KEYWORDS = ['type', 'properties', 'required', 'additionalProperties', 'title', 'description'];

function fieldKind(name: string, field: Record<string, unknown>): FormFieldKind | string {
  const type = field.type;
  if (typeof type !== 'string' || !(type in KEYWORDS)) {
    return `field '${name}' has type ${JSON.stringify(type)}; a form field is string, number, integer or boolean`;
  }
  const extra = Object.keys(field).find((key) => !KEYWORDS[type]!.includes(key));
  if (extra) return `field '${name}' uses '${extra}', which forms do not support`;
  if (type !== 'string') return type as FormFieldKind;
  if (field.enum !== undefined) {
    const ok =
      Array.isArray(field.enum) && field.enum.length > 0 && field.enum.every((v) => typeof v === 'string');
    return ok ? 'enum' : `field '${name}' has an enum that is not a non-empty list of strings`;
  }
  if (field.format === undefined) return 'text';
  return field.format === LONG_TEXT_FORMAT
    ? 'long_text'
    : `field '${name}' has format '${String(field.format)}'; forms know only '${LONG_TEXT_FORMAT}'`;
}

/** The fields of a form, or the problems that keep it from being a form (paths relative to the form). */
export function formFields(
  form: Record<string, unknown>,
): { ok: true; fields: FormField[] } | { ok: false; issues: CheckIssue[] } {
  const issues: CheckIssue[] = [];
  if (form.type !== 'object')
    issues.push({ path: ['type'], message: "a form is a JSON Schema with type 'object'" });
  const extra = Object.keys(form).find((key) => !FORM_KEYWORDS.includes(key));
  if (extra) issues.push({ path: [extra], message: `forms do not support '${extra}'` });
  const properties = form.properties;
  if (typeof properties !== 'object' || properties === null || Object.keys(properties).length === 0) {
    issues.push({ path: ['properties'], message: 'a form needs at least one field in properties' });
    return { ok: false, issues };
  }
  const entries = Object.entries(properties as Record<string, unknown>);
  if (entries.length > MAX_FORM_FIELDS) {
    issues.push({ path: ['properties'], message: `a form has at most ${MAX_FORM_FIELDS} fields` });
  }
  const required = new Set(Array.isArray(form.required) ? form.required.map(String) : []);
  const fields: FormField[] = [];
  for (const [name, raw] of entries) {
    const field = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const kind = fieldKind(name, field);
    if (!['text', 'long_text', 'enum', 'number', 'integer', 'boolean'].includes(kind)) {
      issues.push({ path: ['properties', name], message: kind });
      continue;
    }
    fields.push({
      name,
      kind: kind as FormFieldKind,
      required: required.has(name),
      ...(typeof field.title === 'string' ? { title: field.title } : {}),
      ...(typeof field.description === 'string' ? { description: field.description } : {}),
      ...(kind === 'enum' ? { options: field.enum as string[] } : {}),
    });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, fields };
}
