/**
 * Packages that only some invocations use, shipped beside a function's bundle instead of inside it.
 *
 * JSONata, RE2 (`re2js`) and Ajv run only when an invocation evaluates an expression, an owner's pattern or an
 * owner's JSON Schema; htmlparser2 only when `fetch_url` reads an HTML body. Their shims (shared/runtime/bundle-shims/) load them on first use, but while they sat in
 * `index.js` V8 still pre-parsed their ~360 KB at every cold start (~0.1 ms of CPU per KB; docs/deploy.md,
 * "Function bundles"). Each shim now requires `wf-lazy/<name>`, which the bundles leave external
 * (RuntimeFunction), and the package is built once per version into a minified CommonJS file. After esbuild
 * writes a function's `index.js`, `linkLazyLibraries` copies in the files it requires as
 * `node_modules/wf-lazy/<name>.js`, where Node's `require` finds them from `/var/task/index.js`
 * (https://nodejs.org/api/modules.html#loading-from-node_modules-folders). A bundle requiring a name this table
 * does not hold fails the synth.
 *
 * Run as a script (RuntimeFunction's `afterBundling` hook): `node lazy-libraries.ts <output dir>`.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package specifier the shims require a lazy library by: `wf-lazy/<name>`. External in every bundle. */
export const LAZY_PACKAGE = 'wf-lazy';

/** Each lazy library: the package it is built from, and its entry file (the one the shim needs). */
export const LAZY_LIBRARIES: Readonly<Record<string, { readonly pkg: string; readonly entry: string }>> = {
  jsonata: { pkg: 'jsonata', entry: 'jsonata/jsonata.js' },
  re2js: { pkg: 're2js', entry: 're2js/build/index.js' },
  ajv: { pkg: 'ajv', entry: 'ajv/dist/2020.js' },
  // Only its Parser (what shared/actions/http/html-text.ts uses), not the DOM handler and feeds of its index.
  htmlparser2: { pkg: 'htmlparser2', entry: 'htmlparser2/dist/Parser.js' },
};

/** Bumped when the build options below change, so a file built by an older version is not reused. */
const BUILD_VERSION = 1;

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The `wf-lazy/<name>` names `bundle` (a bundle's source) requires, in order of first appearance. */
export function lazyRequires(bundle: string): string[] {
  const names = new Set<string>();
  for (const match of bundle.matchAll(/require\(\s*["']wf-lazy\/([^"']+)["']\s*\)/g)) names.add(match[1]!);
  return [...names];
}

/**
 * The built file of lazy library `name` (and its `.map` beside it): the package's entry bundled with its
 * dependencies as the functions are (CommonJS for node22, minified, no keepNames, an external source map
 * without sources), written once per package version under node_modules/.cache.
 */
export async function builtLazyLibrary(name: string, repoRoot = REPO_ROOT): Promise<string> {
  const library = LAZY_LIBRARIES[name];
  if (!library) {
    throw new Error(
      `unknown lazy library '${LAZY_PACKAGE}/${name}': add it to LAZY_LIBRARIES in infra/constructs/lazy-libraries.ts`,
    );
  }
  const manifest = JSON.parse(
    readFileSync(join(repoRoot, 'node_modules', library.pkg, 'package.json'), 'utf8'),
  ) as { version: string };
  const file = join(
    repoRoot,
    'node_modules/.cache/wf-runtime/lazy-libraries',
    `${name}-${manifest.version}-v${BUILD_VERSION}.js`,
  );
  if (existsSync(file) && existsSync(`${file}.map`)) return file;
  mkdirSync(dirname(file), { recursive: true });
  // Built under a name of this process, then renamed: concurrent synths (the tests) never read half a file.
  const partial = `${file}.${process.pid}.partial.js`;
  const { build } = await import('esbuild');
  await build({
    absWorkingDir: repoRoot,
    entryPoints: [join(repoRoot, 'node_modules', library.entry)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    mainFields: ['module', 'main'],
    minify: true,
    keepNames: false,
    sourcemap: 'external',
    sourcesContent: false,
    outfile: partial,
    logLevel: 'error',
  });
  renameSync(`${partial}.map`, `${file}.map`);
  renameSync(partial, file);
  return file;
}

/**
 * Copies into `outputDir` the lazy libraries its bundle (`bundleFile`, `index.js` by default) requires, as
 * `node_modules/wf-lazy/<name>.js` with their maps, and returns their names. Nothing is written for a bundle
 * that requires none.
 */
export async function linkLazyLibraries(
  outputDir: string,
  bundleFile = 'index.js',
  repoRoot = REPO_ROOT,
): Promise<string[]> {
  const names = lazyRequires(readFileSync(join(outputDir, bundleFile), 'utf8'));
  const target = join(outputDir, 'node_modules', LAZY_PACKAGE);
  rmSync(target, { recursive: true, force: true });
  for (const name of names) {
    const built = await builtLazyLibrary(name, repoRoot);
    mkdirSync(target, { recursive: true });
    copyFileSync(built, join(target, `${name}.js`));
    copyFileSync(`${built}.map`, join(target, `${name}.js.map`));
  }
  return names;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outputDir = process.argv[2];
  if (!outputDir) throw new Error('usage: node infra/constructs/lazy-libraries.ts <function output dir>');
  await linkLazyLibraries(outputDir);
}
