/**
 * The forms a human task can show: a JSON Schema object whose properties are each one field kind: text,
 * long text (`format: "long-text"`, as the graph's save-time form check names it), number, integer, boolean, or enum. `formFields` reads the fields in the
 * order of the form's `x-order` (a list of field names), then the rest by name: the order of an object's keys
 * does not survive storage (DynamoDB maps are unordered). `checkFormSchema` lists what a form uses that the
 * page cannot show, for save-time validation (docs/human-tasks.md, "Forms").
 */

/** The form-level annotation listing field names in the order the page shows them. */
export const FIELD_ORDER_KEYWORD = 'x-order';
/** The annotation that makes a string a multi-line text box. `format` is an annotation in 2020-12 by default. */
export const LONG_TEXT_FORMAT = 'long-text';
/** More fields than a person fills in one sitting is a design mistake, and a bound on the page. */
export const MAX_FORM_FIELDS = 50;
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

type Common = {
  name: string;
  label: string;
  help?: string;
  required: boolean;
  /** The field's `default`, as the control first shows it (a string, or an option's index for an enum). */
  initial?: string;
};
export type EnumOption = string | number | boolean;
export type FormField = Common &
  (
    | { kind: 'text' | 'long_text'; minLength?: number; maxLength?: number }
    | { kind: 'number' | 'integer'; minimum?: number; maximum?: number }
    | { kind: 'boolean' }
    | { kind: 'enum'; options: EnumOption[] }
  );

type Prop = Record<string, unknown>;
const isObject = (value: unknown): value is Prop =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value : undefined;

/** One property as a field, or why it cannot be one. */
function fieldOf(name: string, prop: unknown, required: boolean): FormField | string {
  if (!FIELD_NAME.test(name)) return `field name "${name}" must be a letter, then letters, digits or _`;
  if (!isObject(prop)) return `field ${name} must be a schema object`;
  const label = str(prop.title) ?? name;
  const help = str(prop.description);
  const common: Common = { name, label, required, ...(help !== undefined ? { help } : {}) };
  const initial = (value: string | undefined) => (value === undefined ? {} : { initial: value });
  const given = prop.default;
  if (Array.isArray(prop.enum)) {
    const options = prop.enum as unknown[];
    const ok = options.length > 0 && options.every((o) => ['string', 'number', 'boolean'].includes(typeof o));
    if (!ok) return `field ${name}: enum must list strings, numbers or booleans`;
    const index = options.indexOf(given);
    return {
      ...common,
      ...initial(index >= 0 ? String(index) : undefined),
      kind: 'enum',
      options: options as EnumOption[],
    };
  }
  Object.assign(
    common,
    initial(
      ['string', 'number'].includes(typeof given) ? String(given) : given === true ? 'true' : undefined,
    ),
  );
  const bound = (key: string) => (num(prop[key]) !== undefined ? { [key]: num(prop[key]) } : {});
  switch (prop.type) {
    case 'string': {
      if (prop.format !== undefined && prop.format !== LONG_TEXT_FORMAT) {
        return `field ${name}: format "${String(prop.format)}" is not supported (only "${LONG_TEXT_FORMAT}")`;
      }
      const kind = prop.format === LONG_TEXT_FORMAT ? 'long_text' : 'text';
      return { ...common, kind, ...bound('minLength'), ...bound('maxLength') };
    }
    case 'number':
    case 'integer':
      return { ...common, kind: prop.type, ...bound('minimum'), ...bound('maximum') };
    case 'boolean':
      return { ...common, kind: 'boolean' };
    default:
      return `field ${name}: type must be string, number, integer or boolean, or an enum`;
  }
}

/** The fields of a form, or the problems that keep it from being shown. */
export function readForm(
  form: unknown,
): { ok: true; fields: FormField[] } | { ok: false; problems: string[] } {
  if (!isObject(form) || form.type !== 'object' || !isObject(form.properties)) {
    return { ok: false, problems: ['form must be a JSON Schema with type "object" and properties'] };
  }
  const required = new Set(Array.isArray(form.required) ? form.required.map(String) : []);
  const entries = Object.entries(form.properties);
  const problems: string[] = [];
  if (entries.length === 0) problems.push('form must declare at least one field');
  if (entries.length > MAX_FORM_FIELDS) problems.push(`form has more than ${MAX_FORM_FIELDS} fields`);
  for (const name of required) {
    if (!Object.hasOwn(form.properties, name)) problems.push(`required field ${name} is not declared`);
  }
  const order = form[FIELD_ORDER_KEYWORD];
  const listed = Array.isArray(order) ? order.map(String) : [];
  if (order !== undefined && !Array.isArray(order))
    problems.push(`${FIELD_ORDER_KEYWORD} must be a list of field names`);
  for (const name of listed) {
    if (!Object.hasOwn(form.properties, name))
      problems.push(`${FIELD_ORDER_KEYWORD} names an undeclared field ${name}`);
  }
  const rank = (name: string) => (listed.includes(name) ? listed.indexOf(name) : listed.length);
  entries.sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const fields: FormField[] = [];
  for (const [name, prop] of entries) {
    const field = fieldOf(name, prop, required.has(name));
    if (typeof field === 'string') problems.push(field);
    else fields.push(field);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, fields };
}

/** What a form uses that the human-task page cannot show (empty: it can). For save-time validation. */
export function checkFormSchema(form: unknown): string[] {
  const read = readForm(form);
  return read.ok ? [] : read.problems;
}

/** The fields of a form that passed `checkFormSchema`; throws naming the first problem otherwise. */
export function formFields(form: unknown): FormField[] {
  const read = readForm(form);
  if (!read.ok) throw new Error(`the form cannot be shown: ${read.problems[0]}`);
  return read.fields;
}
