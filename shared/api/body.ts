/**
 * Reading request bodies: content type, JSON or YAML parsing with errors that name the line, a nesting
 * guard before any schema runs, and zod validation into `validation_failed` field errors.
 */
import type { Context } from 'hono';
import { parseDocument } from 'yaml';
import type * as z from 'zod';
import { fieldErrors } from '../workflow-file/errors.ts';
import { ApiError, invalid } from './errors.ts';
import { MAX_BODY_DEPTH } from './schemas.ts';
import { exceedsDepth } from './storable.ts';

const JSON_TYPES = ['application/json'];
const YAML_TYPES = ['application/yaml', 'text/yaml', 'application/x-yaml', 'text/x-yaml'];

function mediaType(c: Context): string | undefined {
  const header = c.req.header('content-type');
  return header?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function unsupported(accepted: string[]): ApiError {
  return new ApiError(415, 'unsupported_media_type', `send the body as ${accepted.join(' or ')}`, {
    fields: [{ path: 'Content-Type', message: `must be ${accepted.join(' or ')}` }],
  });
}

function guardDepth(value: unknown): unknown {
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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] : 'unreadable';
    throw new ApiError(400, 'invalid_json', 'the body is not valid JSON', {
      fields: [{ path: '(body)', message: detail ?? 'unreadable' }],
    });
  }
}

/** Parses YAML as `parseWorkflowText` does (unique keys, errors with line and column), bounded in aliases. */
function parseYaml(text: string): unknown {
  const yamlError = (messages: string[]) =>
    new ApiError(400, 'invalid_yaml', 'the body is not valid YAML', {
      fields: messages.map((message) => ({ path: '(file)', message })),
    });
  const document = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw yamlError(
      document.errors.map(
        (error) =>
          `${error.message.split('\n')[0]}${error.linePos ? ` (line ${error.linePos[0].line}, column ${error.linePos[0].col})` : ''}`,
      ),
    );
  }
  try {
    return document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw yamlError([error instanceof Error ? (error.message.split('\n')[0] ?? 'unreadable') : 'unreadable']);
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

/** A workflow definition body: JSON (`application/json`) or YAML (`application/yaml`, `text/yaml`). */
export async function readDefinitionBody(c: Context): Promise<unknown> {
  const type = mediaType(c);
  const accepted = [...JSON_TYPES, ...YAML_TYPES];
  if (type === undefined || !accepted.includes(type))
    throw unsupported(['application/json', 'application/yaml']);
  const text = await c.req.text();
  if (text.trim() === '') throw invalid([{ path: '(body)', message: 'a workflow definition is required' }]);
  return guardDepth(JSON_TYPES.includes(type) ? parseJson(text) : parseYaml(text));
}

/** Validates with a schema; failures become a 400 naming every offending field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, message?: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid(fieldErrors(parsed.error), message);
  return parsed.data;
}

/** Validates the query string (every parameter given once) with a strict schema. */
export function validateQuery<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  const all = c.req.queries();
  const query: Record<string, string> = {};
  for (const [name, values] of Object.entries(all)) {
    if (values.length > 1) throw invalid([{ path: name, message: 'must be given once' }]);
    query[name] = values[0] ?? '';
  }
  return validate(schema, query, 'the query string is invalid');
}

/** Validates a request header, if present; failures name the header. */
export function validateHeader<S extends z.ZodType>(
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
