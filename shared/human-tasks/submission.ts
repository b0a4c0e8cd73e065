/**
 * A submitted form, server side: the posted strings are read as the declared field kinds, then validated
 * against the form's JSON Schema (ajv, draft 2020-12). Errors are per field, for re-rendering the form.
 * Only declared fields are read; anything else in the body is ignored.
 */

import { MAX_VALUE_DEPTH, storableProblems } from '../core/storable.ts';
import { type FormField, formFields } from '../graph/form.ts';
import { compileSchema, type ErrorObject, type ValidateFunction } from '../json-schema/index.ts';
import { linearPatterns } from '../regex/linear.ts';

/** The name of a field's input on the page: prefixed, so no form field can collide with `t` or `nonce`. */
export const inputName = (field: string): string => `f.${field}`;

export type FieldErrors = Record<string, string>;
export type SubmissionResult =
  | { ok: true; values: Record<string, unknown> }
  | { ok: false; errors: FieldErrors; values: Record<string, unknown> };

/**
 * The form's validator in the `run` mode: a form may carry annotations (`x-…`, `$comment`) that strict mode
 * would refuse at run time; save-time validation (graph/form.ts, readForm) is where a form is judged. `format:
 * long-text` is an annotation. Compiled once per container (cached by the shared validators).
 */
function validatorFor(form: Record<string, unknown>): ValidateFunction {
  // A person's submission: the form's regexes run on RE2, in linear time (shared/regex/linear.ts).
  const compiled = compileSchema(form, 'run', { patterns: linearPatterns });
  if (!compiled.ok) throw new Error(`the form's JSON Schema does not compile: ${compiled.message}`);
  return compiled.validate;
}

/** One field's value from its posted string; undefined when left empty (a checkbox unticked is `false`). */
/** A posted string that cannot be read as its field's kind. */
class FieldError {
  readonly message: string;
  constructor(message: string) {
    this.message = message;
  }
}

function readValue(field: FormField, raw: string | undefined): unknown {
  if (field.kind === 'boolean') return raw !== undefined && raw !== '';
  if (raw === undefined || raw.trim() === '') return undefined;
  switch (field.kind) {
    case 'number':
    case 'integer': {
      const value = Number(raw.trim());
      return Number.isFinite(value) ? value : new FieldError('must be a number');
    }
    case 'enum':
      // The page posts an option's index: options of any JSON type round-trip exactly.
      return /^\d{1,3}$/.test(raw) && Number(raw) < field.options.length
        ? field.options[Number(raw)]
        : new FieldError('must be one of the listed options');
    default:
      // Browsers send a textarea's line breaks as CRLF (HTML form submission); the value the person typed has LF.
      return raw.replace(/\r\n?/g, '\n');
  }
}

function messageOf(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'enum':
      return 'must be one of the listed options';
    default:
      return error.message ?? 'is not valid';
  }
}

/**
 * Reads the declared fields from a posted body and validates them. `get` returns every value posted under a
 * name (a repeated field is an error of that field).
 */
export function readSubmission(
  form: Record<string, unknown>,
  getAll: (name: string) => string[],
): SubmissionResult {
  // Maps, then own properties (Object.fromEntries): a field named `constructor`, `toString` or `__proto__` is a
  // field like any other, never found "already there" on Object.prototype (which dropped its error).
  const values = new Map<string, unknown>();
  const errors = new Map<string, string>();
  for (const field of formFields(form)) {
    const posted = getAll(inputName(field.name));
    if (posted.length > 1) {
      errors.set(field.name, 'was sent more than once');
      continue;
    }
    const value = readValue(field, posted[0]);
    // A number the JSON Schema allows may still be one DynamoDB cannot hold (1e20, 1e-200): the recorded
    // submission would be a 500, so it is this field's error.
    const unstorable =
      value instanceof FieldError ? value : storableProblems(value, { maxDepth: MAX_VALUE_DEPTH })[0];
    if (unstorable) errors.set(field.name, unstorable.message);
    else if (value !== undefined) values.set(field.name, value);
  }
  const read = Object.fromEntries(values);
  const validate = validatorFor(form);
  if (!validate(read)) {
    for (const error of validate.errors ?? []) {
      const name =
        error.keyword === 'required'
          ? String(error.params.missingProperty)
          : (error.instancePath.split('/')[1] ?? '');
      if (!errors.has(name)) errors.set(name, messageOf(error));
    }
  }
  return errors.size > 0
    ? { ok: false, errors: Object.fromEntries(errors), values: read }
    : { ok: true, values: read };
}
