/**
 * Human-task forms, read one way for the save check (graph validation) and for the page (shared/human-tasks):
 * a JSON Schema object whose properties are the fields (form-field.ts lists the kinds), with `required`,
 * `additionalProperties`, `title`, `description` and `x-order` at the top (docs/graph-workflows.md, "Forms").
 *
 * Field order: the form-level `x-order` (a list of the form's field names) first, in its order, then the rest
 * by name. The key order of a JSON object is not the order: it does not survive storage (DynamoDB maps).
 */
import type { CheckIssue } from '../schemas/action-checks.ts';
import { type FormField, fieldOf } from './form-field.ts';

export { type FormField, type FormFieldKind, LONG_TEXT_FORMAT } from './form-field.ts';

export const MAX_FORM_FIELDS = 30;
/** The form-level annotation listing field names in the order the page shows them. */
export const FIELD_ORDER_KEYWORD = 'x-order';
const FORM_KEYWORDS = ['type', 'properties', 'required', 'additionalProperties', 'title', 'description'];

export type FormRead = { ok: true; fields: FormField[] } | { ok: false; issues: CheckIssue[] };

/** The listed names of a valid `x-order`, or the problems with it (paths relative to the form). */
function fieldOrder(order: unknown, properties: object): { listed: string[]; issues: CheckIssue[] } {
  if (order === undefined) return { listed: [], issues: [] };
  if (!Array.isArray(order) || !order.every((name) => typeof name === 'string'))
    return {
      listed: [],
      issues: [
        {
          path: [FIELD_ORDER_KEYWORD],
          message: `${FIELD_ORDER_KEYWORD} is a list of the form's field names`,
        },
      ],
    };
  const issues: CheckIssue[] = [];
  order.forEach((name, index) => {
    const path = [FIELD_ORDER_KEYWORD, index];
    if (!Object.hasOwn(properties, name))
      issues.push({
        path,
        message: `${FIELD_ORDER_KEYWORD} names '${name}', which is not a field of the form`,
      });
    else if (order.indexOf(name) !== index)
      issues.push({ path, message: `${FIELD_ORDER_KEYWORD} lists '${name}' more than once` });
  });
  return { listed: order, issues };
}

/** The fields of a form in page order, or every problem that keeps it from being a form (paths relative to it). */
export function readForm(form: unknown): FormRead {
  const top =
    typeof form === 'object' && form !== null && !Array.isArray(form)
      ? (form as Record<string, unknown>)
      : {};
  const issues: CheckIssue[] = [];
  if (top.type !== 'object')
    issues.push({ path: ['type'], message: "a form is a JSON Schema with type 'object'" });
  const extra = Object.keys(top).find((key) => key !== FIELD_ORDER_KEYWORD && !FORM_KEYWORDS.includes(key));
  if (extra) issues.push({ path: [extra], message: `forms do not support '${extra}'` });
  const properties = top.properties;
  if (typeof properties !== 'object' || properties === null || Object.keys(properties).length === 0) {
    issues.push({ path: ['properties'], message: 'a form needs at least one field in properties' });
    return { ok: false, issues };
  }
  const entries = Object.entries(properties as Record<string, unknown>);
  if (entries.length > MAX_FORM_FIELDS)
    issues.push({ path: ['properties'], message: `a form has at most ${MAX_FORM_FIELDS} fields` });
  const required = new Set(Array.isArray(top.required) ? top.required.map(String) : []);
  // A `required` name that is not a field is Ajv's to refuse at save (strictRequired): one error per problem.
  const order = fieldOrder(top[FIELD_ORDER_KEYWORD], properties);
  issues.push(...order.issues);
  const rank = (name: string) =>
    order.listed.includes(name) ? order.listed.indexOf(name) : order.listed.length;
  entries.sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const fields: FormField[] = [];
  for (const [name, prop] of entries) {
    const field = fieldOf(name, prop, required.has(name));
    if ('problem' in field) issues.push({ path: ['properties', name], message: field.problem });
    else fields.push(field);
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, fields };
}

/** The fields of a form that passed the save check, in page order; throws naming the first problem otherwise. */
export function formFields(form: unknown): FormField[] {
  const read = readForm(form);
  if (!read.ok) throw new Error(`the form cannot be shown: ${read.issues[0]!.message}`);
  return read.fields;
}

/**
 * The form as JSON Schema, for Ajv's strict save-time compile: without the page's own annotation (`x-order`),
 * which strict mode would refuse as an unknown keyword. At run time forms compile in the lenient mode as stored.
 */
export function formSchema(form: Record<string, unknown>): Record<string, unknown> {
  const { [FIELD_ORDER_KEYWORD]: _order, ...schema } = form;
  return schema;
}
