/** shared/graph/index.ts re-exports the public surface of each public module of the graph module, and nothing else. */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as graph from '../../shared/graph/index.ts';

/** Modules whose exports are the graph module's own business (the save check's parts). */
const INTERNAL = [
  'branches',
  'expression-bounds',
  'expression-checks',
  'expression-equality',
  'form-field',
  'index',
  'node-checks',
  'structure',
];
/** Exports of public modules that are internal all the same (used only inside shared/graph). */
const NOT_PUBLIC = [
  'outputSchema',
  'templateExpressions',
  'templateStrings',
  'toExpressionError',
  'validateGraph',
];

describe('shared/graph/index.ts', () => {
  const dir = new URL('../../shared/graph/', import.meta.url);
  const modules = readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => name.slice(0, -3))
    .filter((name) => !INTERNAL.includes(name));

  it.each(modules)('re-exports every value %s.ts exports', async (name) => {
    const module = (await import(new URL(`${name}.ts`, dir).href)) as Record<string, unknown>;
    for (const [key, value] of Object.entries(module)) {
      if (NOT_PUBLIC.includes(key)) continue;
      expect({ key, value: (graph as Record<string, unknown>)[key] }).toEqual({ key, value });
    }
  });
});
