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
import { LAMBDA_BUILD_OPTIONS, lambdaMetafile, runtimeClients } from '../support/lambda-bundle.ts';

const BEDROCK_CLIENT = 'node_modules/@anthropic-ai/bedrock-sdk/';
const EVENT_STREAMS = 'node_modules/@smithy/core/dist-es/submodules/event-streams/';
const EVENT_STREAMS_STUB = 'shared/runtime/bundle-shims/no-event-streams.ts';

describe('lazy module wrappers in the Lambda bundles', () => {
  it('no bundle but a Bedrock deployment’s Turn reaches the Bedrock client or @smithy/core’s event streams', async () => {
    const handlers = HANDLER_NAMES.filter((name) => name !== 'mcp');
    // Every handler but Mcp shares its aliases, so one esbuild call parses them all (Mcp's own below).
    const anthropic = { WF_MODEL_PROVIDER: 'anthropic' };
    const metafiles = [await lambdaMetafile(handlers, anthropic), await lambdaMetafile(['mcp'], anthropic)];
    const inputs = metafiles.flatMap((metafile) => Object.keys(metafile.inputs));
    expect(inputs.filter((path) => path.startsWith(BEDROCK_CLIENT))).toEqual([]);
    // Each bundle holds the event-streams stub in the module's place (test/infra/event-streams.test.ts says
    // why that is safe) and no AWS SDK client the runtime does not depend on.
    const clients = runtimeClients().map((name) => `node_modules/${name}/`);
    for (const output of metafiles.flatMap((metafile) => Object.values(metafile.outputs))) {
      const held = Object.keys(output.inputs);
      expect(held, output.entryPoint).toContain(EVENT_STREAMS_STUB);
      expect(
        held.filter((path) => path.startsWith(EVENT_STREAMS)),
        output.entryPoint,
      ).toEqual([]);
      const otherClients = held.filter(
        (path) =>
          path.startsWith('node_modules/@aws-sdk/client-') && !clients.some((c) => path.startsWith(c)),
      );
      expect(otherClients, output.entryPoint).toEqual([]);
    }
    // The checks see the client and the module when they are reached: a Bedrock deployment's Turn.
    const bedrockTurn = Object.keys(
      (await lambdaMetafile(['turn'], { WF_MODEL_PROVIDER: 'bedrock' })).inputs,
    );
    expect(bedrockTurn.some((path) => path.startsWith(BEDROCK_CLIENT))).toBe(true);
    expect(bedrockTurn.some((path) => path.startsWith(EVENT_STREAMS))).toBe(true);
  }, 180_000);

  it('an Anthropic deployment’s Turn wraps at most 10 modules (124 with the Anthropic SDK’s agent toolset, 301 with @smithy/core’s event streams, 447 when it reached the Bedrock client)', async () => {
    // Unminified, so each wrapper keeps esbuild's helper name and its module's path.
    const result = await build({
      ...LAMBDA_BUILD_OPTIONS,
      mainFields: [...LAMBDA_BUILD_OPTIONS.mainFields],
      external: [...LAMBDA_BUILD_OPTIONS.external],
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
    // Left (2026-12-04: 5): our HTML reader (fetch-url.ts, loaded on the first HTML page) and its parser's shim,
    // a stub or two. The Anthropic SDK's agent toolset (`import()`ed by its environments worker, and importing
    // the SDK's client back) is external since 2026-12-04 (BUNDLE_EXTERNALS); @smithy/core's event streams
    // (`import()`ed by its HttpProtocol) are a stub since 2026-12-04 (test/infra/event-streams.test.ts).
    expect(wrapped.length).toBeGreaterThan(0);
    expect(wrapped.length).toBeLessThanOrEqual(10);
    expect(wrapped.filter((path) => path.includes('@anthropic-ai/sdk/client'))).toEqual([]);
    // Tree shaking drops the worker: the bundle keeps no `import()` of the toolset that could fail.
    expect(result.outputFiles[0]!.text.includes('agent-toolset')).toBe(false);
    expect(wrapped.filter((path) => path.includes('/event-streams/'))).toEqual([]);
    expect(wrapped.filter((path) => path.includes('credential-provider'))).toEqual([]);
  }, 120_000);
});
