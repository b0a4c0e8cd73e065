/**
 * One property of a human-task form as a field the page can render and a person can fill, or why it cannot be
 * one (form.ts reads the whole form). The kinds (docs/graph-workflows.md, "Forms"):
 *
 * | kind        | schema                                               |
 * |-------------|------------------------------------------------------|
 * | `text`      | `{ type: string }` (minLength, maxLength, pattern)   |
 * | `long_text` | `{ type: string, format: long-text }` (a text area)  |
 * | `enum`      | `{ type: string, enum: [..strings] }` (a choice)     |
 * | `number`    | `{ type: number }` / `integer` (minimum, maximum …)  |
 * | `boolean`   | `{ type: boolean }` (a checkbox / approve switch)    |
 *
 * Every field may carry `title` (its label), `description` (help under it) and `default` (what the control
 * first shows).
 */

/** The annotation that makes a string a multi-line text box. `format` is an annotation in 2020-12 by default. */
export const LONG_TEXT_FORMAT = 'long-text';
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

type Common = {
  name: string;
  /** The field's `title`, else its name. */
  label: string;
  /** The field's `description`. */
  help?: string;
  required: boolean;
  /** The field's `default`, as the control first shows it (a string, or an option's index for an enum). */
  initial?: string;
};
export type FormFieldKind = 'text' | 'long_text' | 'enum' | 'number' | 'integer' | 'boolean';
export type FormField = Common &
  (
    | { kind: 'text' | 'long_text'; minLength?: number; maxLength?: number }
    | { kind: 'number' | 'integer'; minimum?: number; maximum?: number }
    | { kind: 'boolean' }
    | { kind: 'enum'; options: string[] }
  );

const ANNOTATIONS = ['title', 'description', 'default'];
const NUMBER_KEYWORDS = ['type', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const KEYWORDS: Record<string, string[]> = {
  string: ['type', 'minLength', 'maxLength', 'pattern', 'format', 'enum', ...ANNOTATIONS],
  number: [...NUMBER_KEYWORDS, ...ANNOTATIONS],
  integer: [...NUMBER_KEYWORDS, ...ANNOTATIONS],
  boolean: ['type', ...ANNOTATIONS],
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;
const bounds = (prop: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(keys.flatMap((key) => (num(prop[key]) === undefined ? [] : [[key, num(prop[key])]])));

/** The kind a property is, or why it is none. */
function kindOf(name: string, prop: Record<string, unknown>): FormFieldKind | { problem: string } {
  const type = prop.type;
  if (typeof type !== 'string' || !Object.hasOwn(KEYWORDS, type)) {
    return {
      problem: `field '${name}' has type ${JSON.stringify(type)}; a form field is string, number, integer or boolean`,
    };
  }
  const extra = Object.keys(prop).find((key) => !KEYWORDS[type]!.includes(key));
  if (extra) return { problem: `field '${name}' uses '${extra}', which forms do not support` };
  if (type !== 'string') return type as FormFieldKind;
  if (prop.enum !== undefined) {
    const ok =
      Array.isArray(prop.enum) && prop.enum.length > 0 && prop.enum.every((v) => typeof v === 'string');
    return ok ? 'enum' : { problem: `field '${name}' has an enum that is not a non-empty list of strings` };
  }
  if (prop.format === undefined) return 'text';
  return prop.format === LONG_TEXT_FORMAT
    ? 'long_text'
    : {
        problem: `field '${name}' has format '${String(prop.format)}'; forms know only '${LONG_TEXT_FORMAT}'`,
      };
}

/** One property as a field, or why it cannot be one. */
export function fieldOf(name: string, raw: unknown, required: boolean): FormField | { problem: string } {
  if (!FIELD_NAME.test(name))
    return { problem: `field '${name}': a field name is a letter, then up to 63 letters, digits or _` };
  const prop = isObject(raw) ? raw : {};
  const kind = kindOf(name, prop);
  if (typeof kind !== 'string') return kind;
  const help = str(prop.description);
  const common: Common = { name, label: str(prop.title) ?? name, required, ...(help ? { help } : {}) };
  const given = prop.default;
  if (kind === 'enum') {
    const options = prop.enum as string[];
    const index = options.indexOf(given as string);
    return { ...common, ...(index >= 0 ? { initial: String(index) } : {}), kind, options };
  }
  const shown = ['string', 'number'].includes(typeof given)
    ? String(given)
    : given === true
      ? 'true'
      : undefined;
  if (shown !== undefined) common.initial = shown;
  if (kind === 'boolean') return { ...common, kind };
  if (kind === 'text' || kind === 'long_text')
    return { ...common, kind, ...bounds(prop, ['minLength', 'maxLength']) };
  return { ...common, kind, ...bounds(prop, ['minimum', 'maximum']) };
}
