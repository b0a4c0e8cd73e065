/**
 * What the HTTP functions' bundles import (esbuild's metafile, the bundler and entry points RuntimeFunction
 * uses): the Api function carries no YAML parser, Ajv, JSONata or MCP SDK (the workflow writes and /mcp are
 * other functions), the Mcp function none of the SDK's zod v3 layer; WorkflowWrite takes `yaml` from its ES module
 * build. Sizes: `npm run bench:bundles`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type LambdaBundle, lambdaBundles } from '../support/lambda-bundle.ts';

// The three HTTP functions (Mcp in its own esbuild call: its aliases differ, see lambdaBundles).
let bundles: Record<string, LambdaBundle>;
beforeAll(async () => {
  bundles = await lambdaBundles(['api', 'workflow-write', 'mcp']);
}, 120_000);

/** The packages (node_modules/<name>, and zod/v3 apart) a function's bundle takes code from, in output bytes. */
function packagesOf(handler: string): Map<string, number> {
  const { inputs } = bundles[handler]!;
  const found = new Map<string, number>();
  for (const [path, input] of Object.entries(inputs)) {
    // The last node_modules/ of the path: the Mcp bundle's copy of the MCP SDK is under node_modules/.cache/.
    // A lazy library's shim counts as its package: it requires the package's own file, `wf-lazy/<name>`,
    // shipped beside the bundle (infra/constructs/lazy-libraries.ts).
    const shim = /^shared\/runtime\/bundle-shims\/(jsonata|re2js|ajv)\.ts$/.exec(path);
    if (shim) found.set(shim[1]!, (found.get(shim[1]!) ?? 0) + input.bytesInOutput);
    const match = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
    if (!match || input.bytesInOutput === 0) continue;
    const name = match[1] === 'zod' && match[2]!.startsWith('v3/') ? 'zod/v3' : match[1]!;
    found.set(name, (found.get(name) ?? 0) + input.bytesInOutput);
  }
  return found;
}

describe('HTTP function bundles', () => {
  it('keeps the YAML parser, Ajv, JSONata and the MCP SDK out of the Api function', () => {
    const api = packagesOf('api');
    expect(['yaml', 'ajv', 'jsonata', '@modelcontextprotocol/sdk'].filter((name) => api.has(name))).toEqual(
      [],
    );
    expect(api.has('hono')).toBe(true);
  });

  it('bundles them in the WorkflowWrite function (Ajv and JSONata as files beside it), which validates definitions', () => {
    const writes = packagesOf('workflow-write');
    expect(['yaml', 'ajv', 'jsonata'].filter((name) => writes.has(name))).toEqual(['yaml', 'ajv', 'jsonata']);
  });

  it("takes YAML from the package's ES module build, tree-shaken, not its CommonJS build", () => {
    const { inputs } = bundles['workflow-write']!;
    const yamlFiles = Object.keys(inputs).filter((path) => path.includes('node_modules/yaml/'));
    expect(yamlFiles.length).toBeGreaterThan(0);
    expect(yamlFiles.filter((path) => !path.includes('node_modules/yaml/browser/'))).toEqual([]);
  });

  it("keeps the MCP SDK's zod v3 layer and zod-to-json-schema out of the Mcp function", () => {
    const mcp = packagesOf('mcp');
    expect(mcp.has('@modelcontextprotocol/sdk')).toBe(true);
    // A few hundred bytes of module-level constants survive tree shaking; the layer itself was ~80 KB.
    const weight = (name: string) => mcp.get(name) ?? 0;
    expect({ v3: weight('zod/v3') < 1024, toJsonSchema: weight('zod-to-json-schema') < 1024 }).toEqual({
      v3: true,
      toJsonSchema: true,
    });
  });

  it('bundles no Ajv in the Mcp function, whose server is given a validator that refuses elicitation', () => {
    const mcp = packagesOf('mcp');
    expect(['ajv', 'ajv-formats', 'fast-uri'].filter((name) => mcp.has(name))).toEqual([]);
    expect(packagesOf('mcp').has('@modelcontextprotocol/sdk')).toBe(true);
  });
});
