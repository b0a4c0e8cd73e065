/**
 * The regexes of a JSON Schema (draft 2020-12) and where each is, so the save check names the very keyword at
 * fault (`nodes[2].form.properties.code.pattern`) rather than the whole schema. Walked through the keywords
 * that hold subschemas only: a `pattern` inside `const`, `enum`, `default` or `examples` is data, not a regex.
 */
import { linearSyntaxProblem, schemaPatternMessage } from './syntax.ts';

const ONE_SCHEMA = [
  'not',
  'if',
  'then',
  'else',
  'items',
  'contains',
  'additionalProperties',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];

export type SchemaPattern = { path: PropertyKey[]; pattern: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every `pattern` keyword and `patternProperties` key of `schema`, with its path inside the schema. */
export function schemaPatterns(schema: unknown, path: PropertyKey[] = []): SchemaPattern[] {
  if (!isObject(schema)) return [];
  const found: SchemaPattern[] = [];
  if (typeof schema.pattern === 'string') found.push({ path: [...path, 'pattern'], pattern: schema.pattern });
  if (isObject(schema.patternProperties))
    for (const key of Object.keys(schema.patternProperties))
      found.push({ path: [...path, 'patternProperties', key], pattern: key });
  for (const keyword of ONE_SCHEMA) found.push(...schemaPatterns(schema[keyword], [...path, keyword]));
  for (const keyword of SCHEMA_LISTS) {
    const list = schema[keyword];
    if (Array.isArray(list))
      list.forEach((item, index) => {
        found.push(...schemaPatterns(item, [...path, keyword, index]));
      });
  }
  for (const keyword of SCHEMA_MAPS) {
    const map = schema[keyword];
    if (isObject(map))
      for (const [name, item] of Object.entries(map))
        found.push(...schemaPatterns(item, [...path, keyword, name]));
  }
  return found;
}

/** The first regex of `schema` the linear-time engine cannot run, with its path and the reason. */
export function unrunnablePattern(schema: unknown): { path: PropertyKey[]; message: string } | undefined {
  for (const { path, pattern } of schemaPatterns(schema)) {
    const problem = linearSyntaxProblem(pattern);
    if (problem) return { path, message: schemaPatternMessage(pattern, problem) };
  }
  return undefined;
}

/** A copy of `schema` without its `pattern` keywords (what a check that runs no regex validates against). */
export function withoutPatterns(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutPatterns);
  if (!isObject(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'pattern' && typeof value === 'string') continue;
    copy[key] = ['const', 'enum', 'default', 'examples'].includes(key) ? value : withoutPatterns(value);
  }
  return copy;
}
