/**
 * esbuild makes a module lazy (an `__esm` wrapper whose body runs on first use) when a reachable file
 * `require()`s it or, in CommonJS output without splitting, `import()`s it, and then wraps every module that one
 * imports too. It decides this for every file it parsed, before tree shaking, so a wrapper stays on a module
 * the bundle keeps even when the file that asked is dropped (esbuild's linker, `scanImportsAndExports`, step 2:
 * `recursivelyWrapDependencies` over `ReachableFiles`; https://github.com/evanw/esbuild,
 * internal/linker/linker.go). A wrapped module's body is compiled by V8 twice at a cold start, pre-parsed with
 * the file and parsed again when its wrapper first runs ("esbuild helpers" in
 * `node bench/bundles.bench.ts --profile`).
 *
 * The Bedrock client (`@anthropic-ai/bedrock-sdk`) `import()`s `@aws-sdk/credential-providers`, which imports
 * `@aws-sdk/core` and `@smithy/*`, the modules every DynamoDB call runs through. A bundle that reaches the
 * Bedrock client at all (e.g. through the `shared/model/index.ts` barrel) wraps ~150 of them although it
 * bundles no Bedrock code (docs/deploy.md, "Function bundles"). Only a Bedrock deployment's Turn may reach it.
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleAliasesOf, REPO_ROOT } from '../../infra/constructs/runtime-function.ts';
import { HANDLER_NAMES } from '../../infra/constructs/state-names.ts';
import { LAMBDA_BUILD_OPTIONS, lambdaMetafile } from '../support/lambda-bundle.ts';

const BEDROCK_CLIENT = 'node_modules/@anthropic-ai/bedrock-sdk/';

describe('lazy module wrappers in the Lambda bundles', () => {
  it('no bundle but a Bedrock deployment’s Turn reaches the Bedrock client', async () => {
    const handlers = HANDLER_NAMES.filter((name) => name !== 'mcp');
    // Every handler but Mcp shares its aliases, so one esbuild call parses them all (Mcp's own below).
    const reached = async (group: readonly string[]) =>
      Object.keys((await lambdaMetafile(group, { WF_MODEL_PROVIDER: 'anthropic' })).inputs);
    const inputs = [...(await reached(handlers)), ...(await reached(['mcp']))];
    expect(inputs.filter((path) => path.startsWith(BEDROCK_CLIENT))).toEqual([]);
    // The check sees the client when it is reached: a Bedrock deployment's Turn.
    const bedrockTurn = Object.keys(
      (await lambdaMetafile(['turn'], { WF_MODEL_PROVIDER: 'bedrock' })).inputs,
    );
    expect(bedrockTurn.some((path) => path.startsWith(BEDROCK_CLIENT))).toBe(true);
  }, 180_000);

  it('an Anthropic deployment’s Turn wraps at most 320 modules (447 when it reached the Bedrock client)', async () => {
    // Unminified, so each wrapper keeps esbuild's helper name and its module's path.
    const result = await build({
      ...LAMBDA_BUILD_OPTIONS,
      mainFields: [...LAMBDA_BUILD_OPTIONS.mainFields],
      minify: false,
      entryPoints: [`${REPO_ROOT}functions/turn.ts`],
      alias: bundleAliasesOf('turn'),
      define: {
        'process.env.WF_TRACING': '"invocations"',
        'process.env.WF_MODEL_PROVIDER': '"anthropic"',
      },
      write: false,
      outfile: 'turn.js',
    });
    const wrapped = [...result.outputFiles[0]!.text.matchAll(/= __esm\(\{\n\s+"([^"]+)"/g)].map(
      (match) => match[1]!,
    );
    // Left (2026-12-03): @smithy/core's event streams (`import()`ed by its HttpProtocol, in every bundle),
    // the Anthropic SDK's agent toolset (`import()`ed by its environments worker) and our HTML parser
    // (fetch-url.ts, loaded on the first HTML page).
    expect(wrapped.length).toBeGreaterThan(0);
    expect(wrapped.length).toBeLessThanOrEqual(320);
    expect(wrapped.filter((path) => path.includes('credential-provider'))).toEqual([]);
  }, 120_000);
});
