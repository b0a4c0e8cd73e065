/**
 * The core stays pure (shared/core/ports.ts): nothing it runs, itself or through what it imports, loads an AWS
 * SDK, the Anthropic SDK, or reads `process.env`. Checked over the import graph from every module of
 * shared/core, following relative value imports (type-only imports are erased at run time, so they do not count).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const CORE = join(ROOT, 'shared/core');
const FORBIDDEN_PACKAGES = [/^@aws-sdk\//, /^@anthropic-ai\//, /^@smithy\//, /^aws-cdk-lib/];

/** The specifiers a module loads at run time: value imports and re-exports, and dynamic `import()`. */
function runtimeSpecifiers(source: string): string[] {
  const specifiers: string[] = [];
  const statement = /^\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]/gms;
  for (const match of source.matchAll(statement)) {
    const [, , typeOnly, clause = '', specifier = ''] = match;
    if (typeOnly) continue;
    // `import { type A, type B } from` is erased too when every name is a type.
    const names = clause
      .replace(/^\{|\}$/g, '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    if (clause.startsWith('{') && names.length > 0 && names.every((name) => name.startsWith('type ')))
      continue;
    specifiers.push(specifier);
  }
  for (const match of source.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) specifiers.push(match[1] ?? '');
  for (const match of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) specifiers.push(match[1] ?? '');
  return specifiers;
}

/** Every module reached from `entries` by relative runtime imports, with what each loads. */
function importGraph(entries: string[]): Map<string, { specifiers: string[]; source: string }> {
  const seen = new Map<string, { specifiers: string[]; source: string }>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    const source = readFileSync(file, 'utf8');
    const specifiers = runtimeSpecifiers(source);
    seen.set(file, { specifiers, source });
    for (const specifier of specifiers)
      if (specifier.startsWith('.')) queue.push(resolve(dirname(file), specifier));
  }
  return seen;
}

/** Whether `pattern` matches `source` outside comments. */
const inCode = (source: string, pattern: RegExp) =>
  source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .some((line) => pattern.test(line.replace(/\/\/.*$/, '')));
const readsEnvironment = (source: string) => inCode(source, /\bprocess\.env\b/);
const readsClock = (source: string) => inCode(source, /\bDate\.now\(\)|\bnew Date\(\)/);

describe('the core is pure', () => {
  const entries = readdirSync(CORE)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(CORE, name));
  const graph = importGraph(entries);

  it('reaches no AWS SDK, Anthropic SDK or CDK package, itself or through what it imports', () => {
    // Act
    const offending = [...graph].flatMap(([file, { specifiers }]) =>
      specifiers
        .filter((specifier) => FORBIDDEN_PACKAGES.some((pattern) => pattern.test(specifier)))
        .map((specifier) => `${relative(ROOT, file)} loads ${specifier}`),
    );

    // Assess
    expect(graph.size).toBeGreaterThan(entries.length);
    expect(offending).toEqual([]);
  });

  it('reads no process.env anywhere it reaches', () => {
    // Act
    const offending = [...graph]
      .filter(([, { source }]) => readsEnvironment(source))
      .map(([file]) => relative(ROOT, file));

    // Assess
    expect(offending).toEqual([]);
  });

  it('reads no clock of its own (Date.now(), new Date()) anywhere it reaches: time comes through the Clock port', () => {
    // Act
    const offending = [...graph]
      .filter(([, { source }]) => readsClock(source))
      .map(([file]) => relative(ROOT, file));

    // Assess
    expect(offending).toEqual([]);
  });

  it('tells runtime imports from erased ones', () => {
    // Act
    const specifiers = runtimeSpecifiers(
      [
        "import type { A } from './a.ts';",
        "import { type B, type C } from './b.ts';",
        "import { type D, e } from './c.ts';",
        "import * as f from '@aws-sdk/client-dynamodb';",
        "export { g } from './d.ts';",
        "export type { H } from './e.ts';",
        "import './side-effect.ts';",
        "const lazy = () => import('@anthropic-ai/sdk');",
      ].join('\n'),
    );

    // Assess
    expect(specifiers).toEqual([
      './c.ts',
      '@aws-sdk/client-dynamodb',
      './d.ts',
      './side-effect.ts',
      '@anthropic-ai/sdk',
    ]);
  });
});
