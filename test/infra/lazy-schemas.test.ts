/**
 * Schemas that only some invocations use are built on first use, not at a cold start (docs/deploy.md,
 * "Function bundles"): the API's response schemas and the jobs API's view schemas describe answers in the
 * OpenAPI document only, so they are built by the document's first request. Two checks: the files build
 * nothing at module scope (a schema written there again would be built by every function that imports the
 * file), and the Api function's bundle, run in a fresh Node.js process with a marker in each builder, calls
 * neither at import while the document still calls both.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleAliasesOf, REPO_ROOT } from '../../infra/constructs/runtime-function.ts';
import { LAMBDA_BUILD_OPTIONS, runInFreshProcess } from '../support/lambda-bundle.ts';

/** Each file with its builder: the function whose first call builds the file's schemas. */
const LAZY_FILES = {
  'shared/api/response-schemas.ts': 'responseSchemas',
  'shared/jobs/view-schemas.ts': 'jobViewSchemas',
} as const;

/** Call and `new` expressions a file's top level runs when it is imported (function bodies excluded). */
function moduleScopeCalls(path: string): string[] {
  const text = readFileSync(join(REPO_ROOT, path), 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const calls: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node)) return;
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) calls.push(node.getText(source).slice(0, 60));
    ts.forEachChild(node, visit);
  };
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) continue;
    visit(statement);
  }
  return calls;
}

describe('schemas built on first use', () => {
  it.each(Object.keys(LAZY_FILES))('%s builds nothing at module scope', (path) => {
    expect(moduleScopeCalls(path)).toEqual([]);
  });

  const dir = mkdtempSync(join(tmpdir(), 'wf-lazy-schemas-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Pushes the file's name onto `globalThis.__built` when its builder runs. */
  const marker: Plugin = {
    name: 'builder-marker',
    setup(bundler) {
      bundler.onLoad({ filter: /shared\/(api\/response|jobs\/view)-schemas\.ts$/ }, (args) => {
        const path = args.path.slice(REPO_ROOT.length);
        const builder = LAZY_FILES[path as keyof typeof LAZY_FILES];
        const text = readFileSync(args.path, 'utf8');
        const opening = `export function ${builder}() {\n`;
        if (!text.includes(opening)) throw new Error(`${path} has no ${opening.trim()}`);
        return {
          loader: 'ts',
          contents: text.replace(
            opening,
            `${opening}(globalThis.__built ??= []).push(${JSON.stringify(builder)});\n`,
          ),
        };
      });
    },
  };

  async function bundle(name: string, entry: string): Promise<string> {
    await build({
      ...LAMBDA_BUILD_OPTIONS,
      mainFields: [...LAMBDA_BUILD_OPTIONS.mainFields],
      entryPoints: { [name]: entry },
      alias: bundleAliasesOf('api'),
      define: { 'process.env.WF_TRACING': '"invocations"' },
      outdir: dir,
      plugins: [marker],
    });
    return join(dir, `${name}.js`);
  }

  const run = (script: string): unknown => runInFreshProcess(dir, script);

  it('the Api bundle builds neither at import; the OpenAPI document builds both', async () => {
    const api = await bundle('api', join(REPO_ROOT, 'functions/api.ts'));
    const source = readFileSync(api, 'utf8');
    for (const builder of Object.values(LAZY_FILES)) expect(source).toContain(`.push("${builder}")`);
    expect(
      run(`require(${JSON.stringify(api)});\nconsole.log(JSON.stringify(globalThis.__built ?? []));\n`),
    ).toEqual([]);

    const entry = join(dir, 'document.ts');
    writeFileSync(
      entry,
      `export { openApiDocument } from ${JSON.stringify(join(REPO_ROOT, 'shared/api/openapi.ts'))};\n`,
    );
    const document = await bundle('document', entry);
    expect(
      run(
        `const { openApiDocument } = require(${JSON.stringify(document)});\n` +
          'const before = [...(globalThis.__built ?? [])];\n' +
          'const { components } = openApiDocument();\n' +
          'console.log(JSON.stringify({ before, after: globalThis.__built, has: ["RunPage", "Job"].filter((id) => id in components.schemas) }));\n',
      ),
    ).toEqual({ before: [], after: ['responseSchemas', 'jobViewSchemas'], has: ['RunPage', 'Job'] });
  }, 120_000);
});
