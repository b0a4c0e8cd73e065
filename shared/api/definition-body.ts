/**
 * Reading a workflow definition body: JSON or YAML, YAML errors naming the line, the nesting guard before any
 * schema runs. Its own module so only the workflow-write routes bundle the YAML parser.
 */
import type { Context } from 'hono';
import { parseDocument } from 'yaml';
import { guardDepth, JSON_TYPES, mediaType, parseJson, unsupported } from './body.ts';
import { ApiError, invalid } from './errors.ts';

const YAML_TYPES = ['application/yaml', 'text/yaml', 'application/x-yaml', 'text/x-yaml'];

/**
 * How a YAML body is parsed: as `parseWorkflowText` does (unique keys, errors with line and column), and with
 * the library's warnings off. Its one warning on this path (a map key that is a collection, stringified by
 * `toJS`) quotes the key, and a caller's definition never goes to the logs; the key still reaches the schema,
 * which names it.
 */
export const YAML_PARSE_OPTIONS = { prettyErrors: true, uniqueKeys: true, logLevel: 'error' } as const;
/** `toJS` bounded in aliases: a body of nested aliases cannot expand into a huge value. */
export const YAML_TO_JS_OPTIONS = { maxAliasCount: 100 } as const;

/** Parses a YAML body, or throws `invalid_yaml` naming each problem's line and column. */
function parseYaml(text: string): unknown {
  const yamlError = (messages: string[]) =>
    new ApiError(400, 'invalid_yaml', 'the body is not valid YAML', {
      fields: messages.map((message) => ({ path: '(file)', message })),
    });
  const document = parseDocument(text, YAML_PARSE_OPTIONS);
  if (document.errors.length > 0) {
    throw yamlError(
      document.errors.map(
        (error) =>
          `${error.message.split('\n')[0]}${error.linePos ? ` (line ${error.linePos[0].line}, column ${error.linePos[0].col})` : ''}`,
      ),
    );
  }
  try {
    return document.toJS(YAML_TO_JS_OPTIONS);
  } catch (error) {
    throw yamlError([error instanceof Error ? (error.message.split('\n')[0] ?? 'unreadable') : 'unreadable']);
  }
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
