/**
 * A function's bundle as RuntimeFunction builds it (infra/constructs/runtime-function.ts: CommonJS, node22,
 * the packages' module builds, the AWS SDK included with the Lambda credential alias, minified, no keepNames,
 * the bundled environment as defines), built in memory for esbuild's metafile: what the bundle holds code from.
 * Shared by the bundle-content checks in test/infra and `bench/bundle-contents.ts`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { BUNDLE_EXTERNALS, bundleAliasesOf, REPO_ROOT } from '../../infra/constructs/runtime-function.ts';

/**
 * The esbuild options of every function's bundle (RuntimeFunction's): CommonJS for node22 from the packages'
 * module builds, minified, no keepNames. The callers add their entry points, aliases, defines and output.
 */
export const LAMBDA_BUILD_OPTIONS = {
  absWorkingDir: REPO_ROOT,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  mainFields: ['module', 'main'],
  // The lazy libraries (files of their own beside the bundle) and the Anthropic SDK's agent toolset.
  external: [...BUNDLE_EXTERNALS],
  minify: true,
  keepNames: false,
  logLevel: 'silent',
} as const satisfies BuildOptions;

/** The default bundled environment: tracing of invocations, as every function has unless it traces AWS calls. */
const DEFAULT_DEFINES = { WF_TRACING: 'invocations' };

export type LambdaBundle = Metafile['outputs'][string];

/** The bundle of `functions/<handler>.ts`: its output bytes and, per input file, its bytes in the output. */
export async function lambdaBundle(
  handler: string,
  environment: Record<string, string> = {},
): Promise<LambdaBundle> {
  return (await lambdaBundles([handler], environment))[handler]!;
}

/**
 * The bundles of several handlers with one bundled environment, in one esbuild call per set of aliases
 * (bundleAliasesOf): each output is the one a build of that handler alone makes (no code splitting in
 * CommonJS), and shared modules are parsed once (7 read-path handlers: 9 s instead of 32 s on the loaded
 * 2-core machine).
 */
export async function lambdaBundles(
  handlers: readonly string[],
  environment: Record<string, string> = {},
): Promise<Record<string, LambdaBundle>> {
  const byAliases = new Map<string, string[]>();
  for (const handler of handlers) {
    const key = JSON.stringify(bundleAliasesOf(handler, environment));
    byAliases.set(key, [...(byAliases.get(key) ?? []), handler]);
  }
  const byHandler: Record<string, LambdaBundle> = {};
  for (const group of byAliases.values()) {
    const metafile = await lambdaMetafile(group, environment);
    for (const output of Object.values(metafile.outputs)) {
      const handler = group.find((name) => output.entryPoint === `functions/${name}.ts`);
      if (handler) byHandler[handler] = output;
    }
  }
  const missing = handlers.filter((handler) => !byHandler[handler]);
  if (missing.length > 0) throw new Error(`esbuild made no bundle for ${missing.join(', ')}`);
  return byHandler;
}

/**
 * esbuild's whole metafile of the handlers' bundles: the outputs, and the inputs with who imports whom. The
 * handlers must share their aliases (bundleAliasesOf), as one esbuild call has one set.
 */
export async function lambdaMetafile(
  handlers: readonly string[],
  environment: Record<string, string> = {},
): Promise<Metafile> {
  const aliases = new Set(handlers.map((handler) => JSON.stringify(bundleAliasesOf(handler, environment))));
  if (aliases.size > 1)
    throw new Error(`${handlers.join(', ')} have different bundle aliases: bundle them apart`);
  const defines = { ...DEFAULT_DEFINES, ...environment };
  const result = await build({
    entryPoints: Object.fromEntries(
      handlers.map((handler) => [handler, `${REPO_ROOT}functions/${handler}.ts`]),
    ),
    ...LAMBDA_BUILD_OPTIONS,
    mainFields: [...LAMBDA_BUILD_OPTIONS.mainFields],
    alias: bundleAliasesOf(handlers[0] ?? '', environment),
    define: Object.fromEntries(
      Object.entries(defines).map(([name, value]) => [`process.env.${name}`, JSON.stringify(value)]),
    ),
    write: false,
    metafile: true,
    outdir: 'lambda-bundles',
  });
  return result.metafile;
}

/**
 * Runs `script` (CommonJS, written into `dir` beside the bundles it requires) in a fresh Node.js process with
 * only a Lambda-like environment, and returns what it printed as JSON.
 */
export function runInFreshProcess(dir: string, script: string): unknown {
  const file = join(dir, `run-${Math.random().toString(36).slice(2)}.cjs`);
  writeFileSync(file, script);
  const printed = execFileSync(process.execPath, [file], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1' },
    encoding: 'utf8',
  });
  return JSON.parse(printed);
}

/** The `@aws-sdk/client-*` packages the runtime depends on (package.json `dependencies`). */
export function runtimeClients(): string[] {
  const manifest = JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return Object.keys(manifest.dependencies).filter((name) => name.startsWith('@aws-sdk/client-'));
}
