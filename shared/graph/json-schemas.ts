/**
 * JSON Schemas in a graph definition (the start input, agent_task structured outputs, human_task forms) are
 * compiled with Ajv (draft 2020-12) in strict mode at save time, so an unknown keyword, a `required` property
 * that is not defined or a `$ref` that does not resolve is refused then, not at run time. `format` is an
 * annotation (not validated), which is how forms mark long text (`format: long-text`, form.ts).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

export const MAX_SCHEMA_BYTES = 32_000;

export type SchemaCompileResult = { ok: true; validate: ValidateFunction } | { ok: false; message: string };

/** Compiled schemas by their JSON text: a stored graph is parsed (and so checked) on every read. */
const cache = new Map<string, SchemaCompileResult>();
const MAX_CACHED = 256;
/** One Ajv for schemas without `$id`; a schema with one gets its own instance, so two ids never clash. */
let shared: Ajv2020 | undefined;
const newAjv = () => new Ajv2020({ strict: true, validateFormats: false, allErrors: false, logger: false });

/** Compiles a JSON Schema, or says why it is not a valid one. Results are cached by the schema's JSON text. */
export function compileJsonSchema(schema: Record<string, unknown>): SchemaCompileResult {
  const text = JSON.stringify(schema);
  const cached = cache.get(text);
  if (cached) return cached;
  const result = compileUncached(schema, text);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(text, result);
  return result;
}

function compileUncached(schema: Record<string, unknown>, text: string): SchemaCompileResult {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_SCHEMA_BYTES) {
    return { ok: false, message: `is ${bytes} bytes of JSON Schema; the limit is ${MAX_SCHEMA_BYTES}` };
  }
  if (shared === undefined) shared = newAjv();
  const ajv = text.includes('"$id"') ? newAjv() : shared;
  try {
    // The compiled function is cached by the cache above, not in Ajv: keep Ajv's own cache from growing.
    const validate = ajv.compile(schema);
    ajv.removeSchema(schema);
    return { ok: true, validate };
  } catch (thrown) {
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    return { ok: false, message: `is not a valid JSON Schema: ${message}` };
  }
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
