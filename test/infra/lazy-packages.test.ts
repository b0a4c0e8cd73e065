/**
 * jsonata, re2js, Ajv and htmlparser2 are files of their own beside the bundles of the functions that may run an
 * expression, an owner's pattern or an owner's JSON Schema, or read an HTML page (`fetch_url`) (`wf-lazy/<name>`: infra/constructs/lazy-libraries.ts), loaded
 * by their shims on first use (shared/runtime/bundle-shims/, docs/deploy.md, "Function bundles"). Each bundle is
 * built as the Lambda bundles are, its lazy libraries linked beside it as the synth links them, and run in a
 * fresh Node.js process: importing a handler loads none of them, and the first expression, pattern or schema
 * loads its package, which answers as it does without the shim.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { lazyRequires, linkLazyLibraries } from '../../infra/constructs/lazy-libraries.ts';
import { LAMBDA_BUNDLE_ALIASES, REPO_ROOT } from '../../infra/constructs/runtime-function.ts';
import { LAMBDA_BUILD_OPTIONS, runInFreshProcess } from '../support/lambda-bundle.ts';

const dir = mkdtempSync(join(tmpdir(), 'wf-lazy-packages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bundle(
  entryPoints: Record<string, string>,
  defines: Record<string, string> = {},
): Promise<void> {
  await build({
    ...LAMBDA_BUILD_OPTIONS,
    mainFields: [...LAMBDA_BUILD_OPTIONS.mainFields],
    external: [...LAMBDA_BUILD_OPTIONS.external],
    entryPoints,
    alias: { ...LAMBDA_BUNDLE_ALIASES },
    define: { 'process.env.WF_TRACING': '"invocations"', ...defines },
    outdir: dir,
  });
}

const run = (script: string): unknown => runInFreshProcess(dir, script);

/** A script line: the lazy libraries the process has loaded so far, by name. */
const LOADED =
  "const loaded = () => Object.keys(require.cache).filter((f) => f.includes('/node_modules/wf-lazy/')).map((f) => f.split('/').pop().replace('.js', '')).sort();\n";

describe('jsonata, re2js, Ajv and htmlparser2 beside the Lambda bundles', () => {
  it.each([
    ['human-task', ['jsonata', 're2js']],
    ['graph-advance', ['ajv', 'jsonata', 're2js']],
    ['graph-service', ['htmlparser2', 'jsonata', 're2js']],
    ['approval-http', ['ajv', 're2js']],
    ['workflow-write', ['ajv', 'jsonata']],
    ['turn', ['htmlparser2']],
    ['deliver', ['htmlparser2']],
  ])(
    '%s requires %j as files of their own and loads none of them at import',
    async (handler, packages) => {
      // Turn as an Anthropic deployment bundles it (the Bedrock clients need the event-stream module).
      await bundle(
        { [handler]: join(REPO_ROOT, 'functions', `${handler}.ts`) },
        handler === 'turn' ? { 'process.env.WF_MODEL_PROVIDER': '"anthropic"' } : {},
      );
      const source = readFileSync(join(dir, `${handler}.js`), 'utf8');
      expect(lazyRequires(source).sort()).toEqual(packages);
      // The packages' code is not in the bundle: RE2's and Ajv's own error texts.
      expect(source.includes('missing closing )'), 're2js').toBe(false);
      expect(source.includes('addKeywords: keyword must be string'), 'ajv').toBe(false);
      // htmlparser2's entity tables (decoded by `entities`) stay out too.
      expect(source.includes('onopentagname'), 'htmlparser2').toBe(false);
      expect(await linkLazyLibraries(dir, `${handler}.js`)).toEqual(lazyRequires(source));
      const atImport = run(
        `require(${JSON.stringify(join(dir, `${handler}.js`))});\n${LOADED}console.log(JSON.stringify(loaded()));\n`,
      );
      expect(atImport).toEqual([]);
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
    expect(await linkLazyLibraries(dir, 'use.js')).toEqual(['re2js', 'jsonata', 'ajv']);
    const answers = run(
      `const m = require(${JSON.stringify(join(dir, 'use.js'))});\n${LOADED}` +
        'const seen = [loaded()];\n' +
        "const found = m.compileLinear('a+b', 'i').matcher('xAAB').find(0);\n" +
        'seen.push(loaded());\n' +
        "let refused; try { m.compileLinear('(a)\\\\1'); } catch (e) { refused = e instanceof m.RegexUnsupportedError; }\n" +
        'const compiled = m.compileExpression(\'$uppercase(name) & "!"\');\n' +
        '(async () => {\n' +
        "  const value = await m.evaluateExpression(compiled.value, { name: 'ada' });\n" +
        '  seen.push(loaded());\n' +
        "  const schema = { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' } } };\n" +
        "  const validator = m.compileSchema(schema, 'run', { patterns: m.linearPatterns });\n" +
        "  const checked = [validator.validate({ code: 'ABC' }), validator.validate({ code: 'abc' })];\n" +
        '  seen.push(loaded());\n' +
        '  console.log(JSON.stringify({ seen, found, refused, value, checked }));\n' +
        '})();\n',
    );
    expect(answers).toEqual({
      seen: [[], ['re2js'], ['jsonata', 're2js'], ['ajv', 'jsonata', 're2js']],
      found: true,
      refused: true,
      value: { ok: true, value: 'ADA!' },
      checked: [true, false],
    });
  }, 120_000);

  it('the first HTML body loads htmlparser2, which reads the page as it does', async () => {
    const entry = join(dir, 'html.ts');
    writeFileSync(
      entry,
      `export { htmlToText } from ${JSON.stringify(join(REPO_ROOT, 'shared/actions/http/html-text.ts'))};\n`,
    );
    await bundle({ html: entry });
    expect(await linkLazyLibraries(dir, 'html.js')).toEqual(['htmlparser2']);
    const page =
      '<html><head><title>T &amp; S</title><base href="https://example.com/a/"></head>' +
      '<body><h1>Hi</h1><p>caf&eacute; <a href="b">link</a></p><script>x()</script></body></html>';
    const answers = run(
      `const m = require(${JSON.stringify(join(dir, 'html.js'))});\n${LOADED}` +
        'const seen = [loaded()];\n' +
        `const read = m.htmlToText(${JSON.stringify(page)}, 'https://example.com/');\n` +
        'seen.push(loaded());\n' +
        'console.log(JSON.stringify({ seen, read }));\n',
    );
    const { htmlToText } = await import('../../shared/actions/http/html-text.ts');
    expect(answers).toEqual({
      seen: [[], ['htmlparser2']],
      read: htmlToText(page, 'https://example.com/'),
    });
  }, 120_000);
});
