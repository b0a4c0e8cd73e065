/**
 * A function's bundle as RuntimeFunction builds it (infra/constructs/runtime-function.ts: CommonJS, node22,
 * the packages' module builds, the AWS SDK included with the Lambda credential alias, minified, no keepNames,
 * the bundled environment as defines), built in memory for esbuild's metafile: what the bundle holds code from.
 * Shared by the bundle-content checks in test/infra and `bench/bundle-contents.ts`.
 */
import { build, type Metafile } from 'esbuild';
import { LAMBDA_BUNDLE_ALIASES, REPO_ROOT } from '../../infra/constructs/runtime-function.ts';

/** The default bundled environment: tracing of invocations, as every function has unless it traces AWS calls. */
const DEFAULT_DEFINES = { WF_TRACING: 'invocations' };

/** The bundle of `functions/<handler>.ts`: its output bytes and, per input file, its bytes in the output. */
export async function lambdaBundle(
  handler: string,
  environment: Record<string, string> = {},
): Promise<Metafile['outputs'][string]> {
  const defines = { ...DEFAULT_DEFINES, ...environment };
  const result = await build({
    entryPoints: [`${REPO_ROOT}functions/${handler}.ts`],
    absWorkingDir: REPO_ROOT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    mainFields: ['module', 'main'],
    alias: { ...LAMBDA_BUNDLE_ALIASES },
    define: Object.fromEntries(
      Object.entries(defines).map(([name, value]) => [`process.env.${name}`, JSON.stringify(value)]),
    ),
    minify: true,
    keepNames: false,
    write: false,
    metafile: true,
    outfile: 'index.js',
    logLevel: 'silent',
  });
  return Object.values(result.metafile.outputs)[0]!;
}
