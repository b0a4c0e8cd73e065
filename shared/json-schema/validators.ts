/**
 * The one place JSON Schemas (draft 2020-12) are compiled with Ajv: graph definitions at save time, agent
 * steps' structured outputs and human-task submissions at run time. Two modes, one Ajv each:
 * - `save`: strict (an unknown keyword, a `required` property not defined, a `$ref` that does not resolve is
 *   refused), first error only — the save check judges a schema once;
 * - `run`: not strict (annotations such as `x-order` or `$comment` pass; the save check already judged the
 *   schema), every error — outputs and forms report all their problems.
 * `format` is an annotation in both (never validated; forms mark long text with it). Compiled validators are
 * cached by mode and the SHA-256 of the schema's JSON, in a bounded least-recently-used map.
 * `pattern` / `patternProperties` never run on V8's backtracking RegExp (ReDoS, Ajv's "Security
 * considerations"): Ajv's `code.regExp` is `checkedPatterns` by default (refuses what RE2 cannot run, runs
 * nothing) and the run-time callers pass `linearPatterns` (shared/regex/linear.ts, RE2, linear time).
 */
import { createHash } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { checkedPatterns, type PatternEngine } from '../regex/checked-patterns.ts';

export type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

export const SCHEMA_MODES = {
  save: { strict: true, allErrors: false },
  run: { strict: false, allErrors: true },
} as const;
export type SchemaMode = keyof typeof SCHEMA_MODES;

export type CompiledSchema =
  | { ok: true; validate: ValidateFunction }
  | { ok: false; problem: 'too_large' | 'invalid'; message: string };

/** How many compiled validators are kept, over both modes. */
export const MAX_CACHED_VALIDATORS = 256;

const cache = new Map<string, CompiledSchema>();
/** One Ajv per mode and pattern engine for schemas without `$id`; one with an `$id` gets its own, so ids never clash. */
const shared = new Map<string, Ajv2020>();
/**
 * `ownProperties`: a property is judged by the data's own fields only. Without it Ajv reads `data[name]`, so a
 * field named `constructor`, `toString` or `hasOwnProperty` that was left out was found on Object.prototype: a
 * `required` one passed, and its rule judged the inherited function (https://ajv.js.org/options.html#ownproperties).
 */
const newAjv = (mode: SchemaMode, regExp: PatternEngine) =>
  new Ajv2020({
    ...SCHEMA_MODES[mode],
    validateFormats: false,
    logger: false,
    ownProperties: true,
    code: { regExp },
  });
function sharedAjv(mode: SchemaMode, regExp: PatternEngine): Ajv2020 {
  const key = `${mode}:${regExp.code}`;
  const ajv = shared.get(key) ?? newAjv(mode, regExp);
  shared.set(key, ajv);
  return ajv;
}

/**
 * Compiles a JSON Schema in `mode`, or says why not: larger than `maxBytes` of JSON (when given), or not a
 * valid schema (Ajv's message). `patterns` makes the schema's regexes (default `checkedPatterns`: judged, not
 * run). Results, failures included, are cached.
 */
export function compileSchema(
  schema: Record<string, unknown>,
  mode: SchemaMode,
  options: { maxBytes?: number; patterns?: PatternEngine } = {},
): CompiledSchema {
  const text = JSON.stringify(schema);
  const patterns = options.patterns ?? checkedPatterns;
  const hash = createHash('sha256').update(text).digest('base64url');
  const key = `${mode}:${options.maxBytes ?? ''}:${patterns.code}:${hash}`;
  const cached = cache.get(key);
  if (cached) {
    // Most recently used last: the oldest entry is the one evicted.
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const result = compileUncached(schema, text, mode, options.maxBytes, patterns);
  if (cache.size >= MAX_CACHED_VALIDATORS) cache.delete(cache.keys().next().value as string);
  cache.set(key, result);
  return result;
}

function compileUncached(
  schema: Record<string, unknown>,
  text: string,
  mode: SchemaMode,
  maxBytes: number | undefined,
  patterns: PatternEngine,
): CompiledSchema {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (maxBytes !== undefined && bytes > maxBytes)
    return {
      ok: false,
      problem: 'too_large',
      message: `is ${bytes} bytes of JSON Schema; the limit is ${maxBytes}`,
    };
  const ajv = text.includes('"$id"') ? newAjv(mode, patterns) : sharedAjv(mode, patterns);
  try {
    return { ok: true, validate: ajv.compile(schema) };
  } catch (thrown) {
    return {
      ok: false,
      problem: 'invalid',
      message: thrown instanceof Error ? thrown.message : String(thrown),
    };
  } finally {
    // The compiled function is cached above, not in Ajv: keep Ajv's own cache from growing.
    ajv.removeSchema(schema);
  }
}
