/**
 * The Mcp function bundles the MCP SDK with its protocol schemas in pure closures (infra/constructs/mcp-sdk-bundle.ts):
 * the schemas nothing references are dropped, and the server answers as before. The bundle of the server, built
 * with the Mcp function's aliases and run in a fresh Node.js process, answers the recorded requests of
 * test/mcp/raw-answers.test.ts byte for byte; the package's types.js takes less than 60% of the bytes it takes
 * without the closures. The server's requests to the client (sampling, elicitation, roots) throw in the copy, so
 * the schemas of their answers are not bundled either.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { pureSchemas, UNSENT_REQUESTS, unsentRequests } from '../../infra/constructs/mcp-sdk-bundle.ts';
import { bundleAliasesOf, REPO_ROOT } from '../../infra/constructs/runtime-function.ts';
import { LAMBDA_BUILD_OPTIONS } from '../support/lambda-bundle.ts';

const dir = mkdtempSync(join(tmpdir(), 'wf-mcp-sdk-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TYPES = /@modelcontextprotocol\/sdk\/dist\/esm\/types\.js$/;

/** The bytes of the SDK's types.js in the bundle, and the bundle's text. */
async function bundle(
  name: string,
  aliases: Record<string, string>,
): Promise<{ types: number; text: string }> {
  const entry = join(dir, `${name}.ts`);
  writeFileSync(
    entry,
    `export { handleMcpRequest } from ${JSON.stringify(join(REPO_ROOT, 'shared/mcp/server.ts'))};\n`,
  );
  const result = await build({
    ...LAMBDA_BUILD_OPTIONS,
    mainFields: [...LAMBDA_BUILD_OPTIONS.mainFields],
    entryPoints: [entry],
    alias: aliases,
    define: { 'process.env.WF_TRACING': '"invocations"' },
    outdir: dir,
    metafile: true,
  });
  const output = Object.values(result.metafile.outputs).find((out) => out.entryPoint !== undefined)!;
  const types = Object.entries(output.inputs).filter(([path]) => TYPES.test(path));
  expect(types).toHaveLength(1);
  return { types: types[0]![1].bytesInOutput, text: readFileSync(join(dir, `${name}.js`), 'utf8') };
}

describe('the MCP SDK in the Mcp bundle', () => {
  it('wraps each schema in a pure closure, in place', () => {
    const source =
      "import * as z from 'zod/v4';\nexport const A = z.string();\nconst B = A.optional().describe('b');\n" +
      "export const C = z.object({ b: B });\nexport const VERSION = '1';\nexport var E;\n(function (E) { E[E.X = 1] = 'X'; })(E || (E = {}));\n";
    expect(pureSchemas(source)).toBe(
      "import * as z from 'zod/v4';\nexport const A = /* @__PURE__ */ (() => z.string())();\n" +
        "const B = /* @__PURE__ */ (() => A.optional().describe('b'))();\n" +
        "export const C = /* @__PURE__ */ (() => z.object({ b: B }))();\nexport const VERSION = '1';\nexport var E;\n" +
        "(function (E) { E[E.X = 1] = 'X'; })(E || (E = {}));\n",
    );
  });

  it('makes the named methods throw, and only them', () => {
    const source =
      'export class S extends P {\n    async ping() {\n        return this.request({ method: "ping" }, EmptyResultSchema);\n    }\n' +
      '    async listRoots(params, options) {\n        return this.request({ method: "roots/list", params }, ListRootsResultSchema, options);\n    }\n}\n';
    expect(unsentRequests(source, ['listRoots'], 'server/index.js')).toBe(
      'export class S extends P {\n    async ping() {\n        return this.request({ method: "ping" }, EmptyResultSchema);\n    }\n' +
        '    async listRoots(params, options) { throw new Error("listRoots: the jobs MCP server sends no such request (infra/constructs/mcp-sdk-bundle.ts)"); }\n}\n',
    );
    expect(() => unsentRequests(source, ['createMessage'], 'server/index.js')).toThrow(
      'server/index.js: expected one method createMessage, found 0',
    );
  });

  it.each(Object.entries(UNSENT_REQUESTS))(
    "finds the unsent requests in the package's %s",
    (file, methods) => {
      const text = readFileSync(
        join(REPO_ROOT, 'node_modules/@modelcontextprotocol/sdk/dist/esm', file),
        'utf8',
      );
      const out = unsentRequests(text, methods, file);
      for (const method of methods)
        expect(out).toContain(`${method}: the jobs MCP server sends no such request`);
    },
  );

  it('answers the recorded requests byte for byte, with half the protocol schemas bundled', async () => {
    const aliases = bundleAliasesOf('mcp');
    const { '@modelcontextprotocol/sdk': sdk, ...withoutCopy } = aliases;
    expect(sdk).toMatch(/node_modules\/\.cache\/wf-runtime\/mcp-sdk-[0-9a-f]{16}\//);
    const pure = await bundle('pure', aliases);
    const plain = await bundle('plain', withoutCopy);
    expect(pure.types).toBeLessThan(plain.types * 0.6);
    // Literals of the answers of sampling (its stop reasons), elicitation (`decline`) and roots (`file://` URIs):
    // in the package's bundle, not in the copy's.
    for (const answerOnly of ['"endTurn"', '"maxTokens"', '"decline"', '"file://"']) {
      expect(plain.text).toContain(answerOnly);
      expect(pure.text).not.toContain(answerOnly);
    }

    const recorded = readFileSync(
      join(REPO_ROOT, 'test/mcp/fixtures/mcp-answers-sdk-1.32.2-mcpserver.json'),
      'utf8',
    );
    const requests = readFileSync(join(REPO_ROOT, 'test/mcp/raw-answers.test.ts'), 'utf8');
    expect(requests).toContain('const requests: Record<string, unknown> = {');
    const script = join(dir, 'answers.cjs');
    writeFileSync(
      script,
      `const { handleMcpRequest } = require(${JSON.stringify(join(dir, 'pure.js'))});
const call = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: args === undefined ? { name } : { name, arguments: args } });
const requests = ${requestsOf(requests)};
(async () => {
  const answers = {};
  for (const [name, body] of Object.entries(requests)) {
    const response = await handleMcpRequest(new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify(body),
    }), {}, { clientId: 'c', owner: 'o' });
    const text = await response.text();
    const headers = Object.fromEntries([...response.headers].filter(([header]) => header !== 'date'));
    answers[name] = { status: response.status, headers, body: text === '' ? '' : JSON.parse(text) };
  }
  console.log(JSON.stringify(answers));
})();
`,
    );
    const printed = execFileSync(process.execPath, [script], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1' },
      encoding: 'utf8',
    });
    const answers = JSON.parse(printed) as Record<string, unknown>;
    const expected = JSON.parse(recorded) as Record<string, unknown>;
    expect(Object.keys(answers)).toHaveLength(9);
    expect(answers).toEqual(Object.fromEntries(Object.keys(answers).map((name) => [name, expected[name]])));
  }, 120_000);
});

/** The `requests` object literal of raw-answers.test.ts, as JavaScript (its only TypeScript is the annotation). */
function requestsOf(test: string): string {
  const start = test.indexOf('{', test.indexOf('const requests: Record<string, unknown> = {'));
  const end = test.indexOf('\n};\n', start);
  return test.slice(start, end + 2);
}
