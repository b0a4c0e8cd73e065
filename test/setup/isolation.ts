/**
 * Which test files may share a worker's module cache (vitest `isolate: false`) and which need a fresh one.
 *
 * A file re-imports its whole module graph when isolated (about 270 of the project's modules on average, plus
 * the SDKs): most of the suite's time on a loaded 2-core machine. A file may share the cache when nothing it
 * reaches keeps state that another file could set or see differently. It needs isolation (`reasons` non-empty)
 * when its import graph (followed through relative imports, from the test file itself) reaches:
 * - a module holding a process-wide singleton built from the environment or from the first caller
 *   (`shared/runtime/aws/*`, `shared/runtime/telemetry.ts`), or a Lambda handler (`functions/*`, which use them);
 * - a test support module that registers a hook at its top level (evaluated once per worker, its `afterEach`
 *   would serve only the first file);
 * - a module that imports @hono/node-server (serving replaces the global `Request` and `Response`);
 * or when the test file or a test support module it reaches mocks, spies, stubs the environment or globals,
 * fakes timers, assigns or deletes `process.env` entries, or imports a computed path (the graph cannot follow it).
 *
 * The scan is textual and errs towards isolation: a file it cannot read, or a hazard in a comment, isolates.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const STATEFUL_MODULES: readonly RegExp[] = [
  /^shared\/runtime\/aws\//,
  /^shared\/runtime\/telemetry\.ts$/,
  /^functions\//,
];

/**
 * A test support module (not a test file) that registers a hook at its top level: evaluated once per worker
 * when files share a module cache, its hook would serve only the first file. Register per test instead
 * (`onTestFinished`, as test/model/helpers.ts does).
 */
const TOP_LEVEL_HOOK = /^(?:afterEach|beforeEach|afterAll|beforeAll)\s*\(/m;

/**
 * Imports that change process globals when used, in any module: @hono/node-server's `serve` (its
 * `getRequestListener`) replaces the global `Request` and `Response` with its own unless told not to, and a file
 * run after it in the same worker would see them (test/egress/bodies.test.ts derived another Content-Type).
 */
const GLOBAL_PATCHERS: readonly RegExp[] = [/\bfrom\s*['"]@hono\/node-server['"/]/];

const HAZARDS: readonly RegExp[] = [
  /\bvi\s*\.\s*(mock|doMock|unmock|stubEnv|stubGlobal|spyOn|useFakeTimers|resetModules|hoisted)\b/,
  /process\.env(\.[A-Za-z_$][\w$]*|\[[^\]]+\])\s*(=(?!=)|\?\?=|\|\|=)/,
  /\bdelete\s+process\.env\b/,
  /Object\.assign\(\s*process\.env\b/,
  /\bprocess\.env\s*=(?!=)/,
  /\bimport\s*\(\s*(?!['"])/,
];

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

export type Isolation = { file: string; reasons: string[] };

/** The project-relative files a module imports by relative path. */
function importsOf(root: string, file: string, cache: Map<string, string[]>): string[] {
  const known = cache.get(file);
  if (known) return known;
  const text = readFileSync(join(root, file), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const target = resolve(root, dirname(file), match[1]!);
    // Files only: a specifier that names a folder or nothing (text in a comment or a string) is no module.
    if (statSync(target, { throwIfNoEntry: false })?.isFile()) found.push(relative(root, target));
  }
  cache.set(file, found);
  return found;
}

/** Every `*.test.ts` under `dir` (project-relative), sorted. */
export function testFiles(root: string, dir = 'test'): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...testFiles(root, path));
    else if (entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out.sort();
}

/** Why `file` (project-relative) must run isolated; empty when it may share a worker's module cache. */
export function isolationOf(root: string, file: string, cache = new Map<string, string[]>()): Isolation {
  const reasons: string[] = [];
  const seen = new Set([file]);
  const pending = [file];
  for (let module = pending.pop(); module !== undefined; module = pending.pop()) {
    if (STATEFUL_MODULES.some((pattern) => pattern.test(module!))) {
      reasons.push(`reaches ${module}`);
      continue;
    }
    let text: string;
    try {
      text = readFileSync(join(root, module), 'utf8');
    } catch {
      reasons.push(`cannot read ${module}`);
      continue;
    }
    for (const patcher of GLOBAL_PATCHERS) {
      const match = patcher.exec(text);
      if (match) reasons.push(`${module}: ${match[0]}`);
    }
    if (module.startsWith('test/')) {
      for (const hazard of HAZARDS) {
        const match = hazard.exec(text);
        if (match) reasons.push(`${module}: ${match[0]}`);
      }
      const hook = module.endsWith('.test.ts') ? null : TOP_LEVEL_HOOK.exec(text);
      if (hook) reasons.push(`${module}: ${hook[0]}`);
    }
    for (const imported of importsOf(root, module, cache)) {
      if (seen.has(imported)) continue;
      seen.add(imported);
      pending.push(imported);
    }
  }
  return { file, reasons };
}

/** The test files split into those that need isolation and those that may share. */
export function splitByIsolation(root: string): { isolated: string[]; shared: string[] } {
  const cache = new Map<string, string[]>();
  const isolated: string[] = [];
  const shared: string[] = [];
  for (const file of testFiles(root))
    (isolationOf(root, file, cache).reasons.length ? isolated : shared).push(file);
  return { isolated, shared };
}
