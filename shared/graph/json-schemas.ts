/**
 * JSON Schemas in a graph definition (the start input, agent_task structured outputs, human_task forms) are
 * compiled with Ajv (draft 2020-12) in strict mode at save time (shared/json-schema), so an unknown keyword, a `required` property
 * that is not defined or a `$ref` that does not resolve is refused then, not at run time. `format` is an
 * annotation (not validated), which is how forms mark long text (`format: long-text`, form.ts). A `pattern` or
 * `patternProperties` key the linear-time engine cannot run (a backreference, a lookaround) is refused naming
 * that keyword (`at`): at run time patterns run on RE2 (shared/regex), and such a pattern would fail there.
 */
import { compileSchema, type ValidateFunction } from '../json-schema/index.ts';
import { unrunnablePattern } from '../regex/schema-patterns.ts';

export const MAX_SCHEMA_BYTES = 32_000;

/** A refusal's `at` is the path of the keyword at fault inside the schema, when it is one keyword. */
export type SchemaCompileResult =
  | { ok: true; validate: ValidateFunction }
  | { ok: false; message: string; at?: PropertyKey[] };

/** Compiles a JSON Schema, or says why it is not a valid one (the shared validators' `save` mode, cached). */
export function compileJsonSchema(schema: Record<string, unknown>): SchemaCompileResult {
  const unrunnable = unrunnablePattern(schema);
  if (unrunnable) return { ok: false, message: unrunnable.message, at: unrunnable.path };
  const compiled = compileSchema(schema, 'save', { maxBytes: MAX_SCHEMA_BYTES });
  if (compiled.ok) return compiled;
  return {
    ok: false,
    message:
      compiled.problem === 'too_large' ? compiled.message : `is not a valid JSON Schema: ${compiled.message}`,
  };
}

/** The top-level properties a schema declares, or undefined when it does not constrain them (no `properties`). */
export function declaredProperties(schema: unknown): Record<string, unknown> | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const { properties } = schema as { properties?: unknown };
  return typeof properties === 'object' && properties !== null
    ? (properties as Record<string, unknown>)
    : undefined;
}

/**
 * Whether a field path exists in a schema: each name must be a declared property of the level above. A level
 * without `properties` (free-form) accepts any name from there on.
 */
export function missingField(schema: unknown, names: readonly string[]): string | undefined {
  let level: unknown = schema;
  for (const [index, name] of names.entries()) {
    const properties = declaredProperties(level);
    if (!properties) return undefined;
    if (!Object.hasOwn(properties, name)) return names.slice(0, index + 1).join('.');
    level = properties[name];
  }
  return undefined;
}
