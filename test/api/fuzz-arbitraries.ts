/**
 * Bad request bodies for fuzzing, derived from the request zod schemas: a valid seed body is mutated at
 * paths the schema describes (drop a field, give it a value of another JSON type or past its bounds, add an
 * unknown field, put junk there) or replaced whole; the schema itself then says whether the result is bad.
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import { exceedsDepth } from '../../shared/core/storable.ts';
import type * as z from '../../shared/zod.ts';

type Path = (string | number)[];
type Def = { type: string; [key: string]: unknown };
const defOf = (schema: z.ZodMiniType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema that constrains a value, past optional, default, nullable and pipe wrappers. */
export function core(schema: z.ZodMiniType): z.ZodMiniType {
  let current = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(current);
    if (
      ['optional', 'default', 'nullable', 'readonly', 'prefault', 'catch', 'nonoptional'].includes(def.type)
    )
      current = def.innerType as z.ZodMiniType;
    else if (def.type === 'pipe') current = def.in as z.ZodMiniType;
    else break;
  }
  return current;
}

/** The schema of a child (object field, record value, list item), when the schema says. */
function childOf(schema: z.ZodMiniType | undefined, key: string | number): z.ZodMiniType | undefined {
  if (!schema) return undefined;
  const def = defOf(core(schema));
  if (def.type === 'object') return (def.shape as Record<string, z.ZodMiniType>)[String(key)];
  if (def.type === 'record') return def.valueType as z.ZodMiniType;
  if (def.type === 'array') return def.element as z.ZodMiniType;
  // A union (e.g. the kinds of workflow): the first option that declares the child.
  if (def.type === 'union')
    for (const option of def.options as z.ZodMiniType[]) {
      const child = childOf(option, key);
      if (child) return child;
    }
  return undefined;
}

export const schemaAt = (root: z.ZodMiniType, path: Path) =>
  path.reduce<z.ZodMiniType | undefined>((schema, key) => childOf(schema, key), root);

/** Every path into a value's objects and lists (the root excluded), up to `depth` levels. */
export function pathsOf(value: unknown, depth = 6, at: Path = []): Path[] {
  if (depth === 0 || value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const path = [...at, Array.isArray(value) ? Number(key) : key];
    return [path, ...pathsOf(child, depth - 1, path)];
  });
}

const clone = <T>(value: T): T => structuredClone(value);
function parentOf(root: unknown, path: Path): Record<string | number, unknown> {
  return path
    .slice(0, -1)
    .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], root) as Record<
    string | number,
    unknown
  >;
}
export function setAt(root: unknown, path: Path, value: unknown): unknown {
  const copy = clone(root);
  parentOf(copy, path)[path.at(-1)!] = value;
  return copy;
}
export function dropAt(root: unknown, path: Path): unknown {
  const copy = clone(root);
  const parent = parentOf(copy, path);
  if (Array.isArray(parent)) parent.splice(Number(path.at(-1)), 1);
  else delete parent[path.at(-1)!];
  return copy;
}

/** Nested lists or objects `depth` levels deep, built without recursion. */
export function nested(depth: number, kind: 'array' | 'object'): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { d: value };
  return value;
}

const hugeString = fc
  .tuple(
    fc.constantFrom('x', 'é', '💥', '\u0000', '\u202e', '\ud800'),
    fc.integer({ min: 60_000, max: 420_000 }),
  )
  .map(([unit, length]) => unit.repeat(length));

/** Values no schema expects: huge and unicode strings, deep nesting, extreme numbers, nested junk. */
export const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1e300, -1e300, 1e-300, 2 ** 60, '', ' ', '__proto__', [], {}),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.double(),
  hugeString,
  fc
    .tuple(fc.integer({ min: 25, max: 3000 }), fc.constantFrom('array' as const, 'object' as const))
    .map(([d, k]) => nested(d, k)),
  fc.jsonValue({ maxDepth: 4 }),
  fc.dictionary(fc.string({ unit: 'binary', maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
);

/** Values of the wrong JSON type for a schema, or just past one of its bounds. */
export function wrongFor(schema: z.ZodMiniType | undefined): fc.Arbitrary<unknown> {
  const inner = schema ? core(schema) : undefined;
  const type = inner ? defOf(inner).type : 'unknown';
  const bounds = inner as
    | { maxLength?: number | null; minLength?: number | null; maxValue?: number; minValue?: number }
    | undefined;
  const options: fc.Arbitrary<unknown>[] = [];
  if (type !== 'string' && type !== 'enum' && type !== 'literal') options.push(fc.string({ maxLength: 20 }));
  if (type !== 'number') options.push(fc.integer(), fc.double({ noNaN: true }));
  if (type !== 'boolean') options.push(fc.boolean());
  if (type !== 'object' && type !== 'record')
    options.push(fc.dictionary(fc.string({ maxLength: 8 }), fc.integer(), { maxKeys: 3 }));
  if (type !== 'array') options.push(fc.array(fc.integer(), { maxLength: 3 }));
  options.push(fc.constant(null));
  if (type === 'string' && typeof bounds?.maxLength === 'number')
    options.push(fc.constant('y'.repeat(bounds.maxLength + 1)));
  if (type === 'string' && typeof bounds?.minLength === 'number' && bounds.minLength > 0)
    options.push(fc.constant('y'.repeat(bounds.minLength - 1)));
  if (type === 'number' && Number.isFinite(bounds?.maxValue))
    options.push(fc.constant((bounds?.maxValue ?? 0) + 1));
  if (type === 'number' && Number.isFinite(bounds?.minValue))
    options.push(fc.constant((bounds?.minValue ?? 0) - 1));
  if (type === 'enum' || type === 'literal') options.push(fc.constantFrom('not-a-member', 'NOT_ONE'));
  return fc.oneof(...options);
}

/** A mutated body: at a path of the seed (or a field the schema declares but the seed lacks), or whole. */
export function mutatedBodies(schema: z.ZodMiniType, seed: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(seed);
  const objectPaths: Path[] = [
    [],
    ...paths.filter((path) => {
      const value = path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], seed);
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    }),
  ];
  const declared = objectPaths.flatMap((path) => {
    const at = schemaAt(schema, path);
    const def = at ? defOf(core(at)) : undefined;
    return def?.type === 'object' ? Object.keys(def.shape as object).map((key) => [...path, key]) : [];
  });
  const anyPath = fc.constantFrom(...paths);
  return fc.oneof(
    anyPath.map((path) => dropAt(seed, path)),
    anyPath.chain((path) => wrongFor(schemaAt(schema, path)).map((value) => setAt(seed, path, value))),
    fc
      .constantFrom(...declared)
      .chain((path) => wrongFor(schemaAt(schema, path)).map((value) => setAt(seed, path, value))),
    fc.tuple(anyPath, junk).map(([path, value]) => setAt(seed, path, value)),
    fc
      .tuple(
        fc.constantFrom(...objectPaths),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 16 }),
        junk,
      )
      .map(([path, key, value]) =>
        path.length === 0
          ? { ...(seed as object), [key]: value }
          : setAt(seed, path, {
              ...(path.reduce<unknown>((node, k) => (node as Record<string, unknown>)[k], seed) as object),
              [key]: value,
            }),
      ),
    junk,
  );
}

/** Text that is not JSON, or not YAML, or YAML a parser must refuse or bound (aliases, tabs, duplicates). */
export const brokenText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '{"name": ',
    '{"name": "x",}',
    "{'name': 'x'}",
    'name: [unclosed',
    'name: "unterminated',
    'a: 1\na: 2',
    '\tname: tabs',
    'name: x\n---\nname: y',
    'key: &anchor\n  child: *anchor',
    `a: &a [x,x,x,x,x,x,x,x,x]\n${Array.from(
      { length: 10 },
      (_, i) =>
        `b${i}: &b${i} [${Array(9)
          .fill(i === 0 ? '*a' : `*b${i - 1}`)
          .join(',')}]`,
    ).join('\n')}`,
    '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[',
    '\u0000\u0001\u0002',
    '',
  ),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.integer({ min: 40, max: 50_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc
    .integer({ min: 10, max: 400 })
    .map((n) => Array.from({ length: n }, (_, i) => `${' '.repeat(i)}a:`).join('\n')),
);

/** Past this depth the YAML writer spends long (and at ~3,000 levels overflows) before JSON is sent anyway. */
const YAML_WRITER_DEPTH = 100;

/**
 * JSON text, or YAML text when asked and the value is shallow enough for the YAML writer (JSON is YAML: a
 * deep value still reaches the YAML parser). Long strings are not folded: folding a 400,000-character
 * string took the writer seconds under load, for no case the parser does not already meet.
 */
export function serialize(value: unknown, as: 'json' | 'yaml'): string {
  if (as === 'yaml' && !exceedsDepth(value, YAML_WRITER_DEPTH)) {
    try {
      return stringify(value, { lineWidth: 0 });
    } catch {
      // too deep for the YAML writer: send JSON (which is YAML) instead
    }
  }
  return JSON.stringify(value) ?? 'null';
}
