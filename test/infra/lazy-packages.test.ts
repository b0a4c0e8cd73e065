/**
 * jsonata, re2js and Ajv are in the bundles of the functions that may run an expression, an owner's pattern or
 * an owner's JSON Schema, but are evaluated only when one runs (shared/runtime/bundle-shims/, docs/deploy.md,
 * "Function bundles"). Each bundle is built as the Lambda bundles are, with a marker appended to the packages'
 * entry files, and run in a fresh Node.js process: importing a handler runs none of them, and the first
 * expression, pattern or schema runs its package, which answers as it does without the shim.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { LAMBDA_BUNDLE_ALIASES, REPO_ROOT } from '../../infra/constructs/runtime-function.ts';
import { LAMBDA_BUILD_OPTIONS, runInFreshProcess } from '../support/lambda-bundle.ts';

const dir = mkdtempSync(join(tmpdir(), 'wf-lazy-packages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LAZY = /node_modules\/(re2js\/build\/index|jsonata\/jsonata|ajv\/dist\/2020)\.js$/;
const PACKAGES = ['jsonata', 're2js', 'ajv'] as const;

/** Appends `globalThis.__evaluated.push('<package>')` to each lazily loaded package's file. */
const marker: Plugin = {
  name: 'evaluation-marker',
  setup(bundler) {
    bundler.onLoad({ filter: LAZY }, (args) => {
      const name = PACKAGES.find((name) => args.path.includes(`/${name}/`));
      const text = readFileSync(args.path, 'utf8');
      return { contents: `${text}\n;(globalThis.__evaluated ??= []).push(${JSON.stringify(name)});\n` };
    });
  },
};

async function bundle(entryPoints: Record<string, string>): Promise<void> {
  await build({
    ...LAMBDA_BUILD_OPTIONS,
    mainFields: [...LAMBDA_BUILD_OPTIONS.mainFields],
    entryPoints,
    alias: { ...LAMBDA_BUNDLE_ALIASES },
    define: { 'process.env.WF_TRACING': '"invocations"' },
    outdir: dir,
    plugins: [marker],
  });
}

const run = (script: string): unknown => runInFreshProcess(dir, script);

describe('jsonata, re2js and Ajv in the Lambda bundles', () => {
  it.each([
    ['human-task', ['jsonata', 're2js']],
    ['graph-advance', ['jsonata', 're2js', 'ajv']],
    ['graph-service', ['jsonata', 're2js']],
    ['approval-http', ['re2js', 'ajv']],
    ['workflow-write', ['jsonata', 'ajv']],
  ])(
    '%s bundles %j but evaluates none of them at import',
    async (handler, packages) => {
      await bundle({ [handler]: join(REPO_ROOT, 'functions', `${handler}.ts`) });
      const source = readFileSync(join(dir, `${handler}.js`), 'utf8');
      for (const name of PACKAGES) {
        expect(source.includes(`.push("${name}")`), name).toBe(packages.includes(name));
      }
      const evaluated = run(
        `require(${JSON.stringify(join(dir, `${handler}.js`))});\n` +
          'console.log(JSON.stringify(globalThis.__evaluated ?? []));\n',
      );
      expect(evaluated).toEqual([]);
    },
    120_000,
  );

  it('the first pattern, expression and schema load their package, which answers as it does', async () => {
    const entry = join(dir, 'use.ts');
    writeFileSync(
      entry,
      `export { compileLinear, RegexUnsupportedError } from ${JSON.stringify(join(REPO_ROOT, 'shared/regex/linear.ts'))};\n` +
        `export { compileExpression, evaluateExpression } from ${JSON.stringify(join(REPO_ROOT, 'shared/graph/expressions.ts'))};\n` +
        `export { compileSchema } from ${JSON.stringify(join(REPO_ROOT, 'shared/json-schema/validators.ts'))};\n` +
        `export { linearPatterns } from ${JSON.stringify(join(REPO_ROOT, 'shared/regex/linear.ts'))};\n`,
    );
    await bundle({ use: entry });
    const answers = run(
      `const m = require(${JSON.stringify(join(dir, 'use.js'))});\n` +
        'const seen = [[...(globalThis.__evaluated ?? [])]];\n' +
        "const found = m.compileLinear('a+b', 'i').matcher('xAAB').find(0);\n" +
        'seen.push([...globalThis.__evaluated]);\n' +
        "let refused; try { m.compileLinear('(a)\\\\1'); } catch (e) { refused = e instanceof m.RegexUnsupportedError; }\n" +
        'const compiled = m.compileExpression(\'$uppercase(name) & "!"\');\n' +
        '(async () => {\n' +
        "  const value = await m.evaluateExpression(compiled.value, { name: 'ada' });\n" +
        '  seen.push([...globalThis.__evaluated]);\n' +
        "  const schema = { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' } } };\n" +
        "  const validator = m.compileSchema(schema, 'run', { patterns: m.linearPatterns });\n" +
        "  const checked = [validator.validate({ code: 'ABC' }), validator.validate({ code: 'abc' })];\n" +
        '  seen.push([...globalThis.__evaluated]);\n' +
        '  console.log(JSON.stringify({ seen, found, refused, value, checked }));\n' +
        '})();\n',
    );
    expect(answers).toEqual({
      seen: [[], ['re2js'], ['re2js', 'jsonata'], ['re2js', 'jsonata', 'ajv']],
      found: true,
      refused: true,
      value: { ok: true, value: 'ADA!' },
      checked: [true, false],
    });
  }, 120_000);
});
