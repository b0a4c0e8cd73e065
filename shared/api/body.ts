/**
 * Reading request bodies: content type, JSON parsing, a nesting guard before any schema runs, and zod
 * validation into `validation_failed` field errors. Workflow definitions (JSON or YAML): definition-body.ts.
 */
import type { Context } from 'hono';
import { exceedsDepth } from '../core/storable.ts';
import { fieldErrors } from '../workflow-file/errors.ts';
import type * as z from '../zod.ts';
import { ApiError, invalid } from './errors.ts';
import { MAX_BODY_DEPTH } from './write-schemas.ts';

export const JSON_TYPES = ['application/json'];

export function mediaType(c: Context): string | undefined {
  const header = c.req.header('content-type');
  return header?.split(';')[0]?.trim().toLowerCase() || undefined;
}

export function unsupported(accepted: string[]): ApiError {
  return new ApiError(415, 'unsupported_media_type', `send the body as ${accepted.join(' or ')}`, {
    fields: [{ path: 'Content-Type', message: `must be ${accepted.join(' or ')}` }],
  });
}

export function guardDepth(value: unknown): unknown {
  if (exceedsDepth(value, MAX_BODY_DEPTH)) {
    throw invalid([
      {
        path: '(root)',
        message: `is nested too deeply (at most ${MAX_BODY_DEPTH} levels of objects and lists)`,
      },
    ]);
  }
  return value;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : 'unreadable';
    throw new ApiError(400, 'invalid_json', 'the body is not valid JSON', {
      fields: [{ path: '(body)', message: detail ?? 'unreadable' }],
    });
  }
}

/** A JSON body; an empty one is `undefined` when `optional`. */
export async function readJsonBody(c: Context, options: { optional?: boolean } = {}): Promise<unknown> {
  const type = mediaType(c);
  const text = await c.req.text();
  if (text.trim() === '' && options.optional && (type === undefined || JSON_TYPES.includes(type)))
    return undefined;
  if (type === undefined || !JSON_TYPES.includes(type)) throw unsupported(JSON_TYPES);
  if (text.trim() === '') throw invalid([{ path: '(body)', message: 'a JSON body is required' }]);
  return guardDepth(parseJson(text));
}

/** Validates with a schema; failures become a 400 naming every offending field. */
export function validate<S extends z.ZodMiniType>(schema: S, value: unknown, message?: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid(fieldErrors(parsed.error), message);
  return parsed.data;
}

/** Validates the query string (every parameter given once) with a strict schema. */
export function validateQuery<S extends z.ZodMiniType>(c: Context, schema: S): z.output<S> {
  const all = c.req.queries();
  const query: Record<string, string> = {};
  for (const [name, values] of Object.entries(all)) {
    if (values.length > 1) throw invalid([{ path: name, message: 'must be given once' }]);
    query[name] = values[0] ?? '';
  }
  return validate(schema, query, 'the query string is invalid');
}

/** Validates a request header, if present; failures name the header. */
export function validateHeader<S extends z.ZodMiniType>(
  c: Context,
  name: string,
  schema: S,
): z.output<S> | undefined {
  const value = c.req.header(name);
  if (value === undefined) return undefined;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const fields = fieldErrors(parsed.error).map((error) => ({ path: name, message: error.message }));
    throw invalid(fields, `the ${name} header is invalid`);
  }
  return parsed.data;
}
