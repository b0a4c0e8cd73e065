/**
 * The MCP SDK as the Mcp function bundles it: the package's ES module build with its protocol schemas
 * (`dist/esm/types.js`) built in `/* @__PURE__ *\/` closures, so that esbuild drops the ones the bundle never
 * references instead of building them at every cold start (docs/deploy.md, "Function bundles").
 *
 * types.js builds ~150 schemas with classic zod at module scope: the requests, results and notifications of
 * both sides of the protocol (resources, prompts, sampling, elicitation, completion, roots, their unions).
 * The server's code (`Server`, `Protocol`, the Streamable HTTP transport) and ours reference about half of
 * them; zod's own `@__NO_SIDE_EFFECTS__` annotations do not cross files, so esbuild kept and built them all.
 * Each top-level `const NAME = <call>` becomes `const NAME = /* @__PURE__ *\/ (() => <call>)()`: the same
 * expression, evaluated at the same point in the same order, and dropped only where nothing references NAME.
 *
 * The rest that kept schemas is the server's methods that send requests to the client (UNSENT_REQUESTS:
 * sampling, elicitation, roots): the jobs server sends none, but their code referenced the schemas of the
 * answers (`CreateMessageResultSchema`, `ElicitResultSchema`, `ListRootsResultSchema` and the content blocks
 * of a sampling answer), so esbuild kept those and the import built them. In the copy each of these methods
 * throws instead (unsentRequests()), and those schemas go too.
 *
 * The copy is written once per SDK version (a hash of types.js) under node_modules/.cache, keeping the
 * package's path below it (`…/node_modules/@modelcontextprotocol/sdk/`), so the SDK's own imports (zod, ajv,
 * pkce-challenge, …) resolve to the repository's node_modules and tools that attribute bytes by package still
 * see the MCP SDK. Only the Mcp bundle is aliased to it (runtime-function.ts); the tests and the local stack
 * import the package.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import type * as TypeScript from 'typescript';

/** Bumped when pureSchemas() or unsentRequests() changes, so a copy written by an older version is not reused. */
const TRANSFORM_VERSION = 2;

/**
 * `source` (an ES module) with each top-level variable initialized by a call wrapped in a pure closure:
 * `export const A = z.object({...}).extend(...)` → `export const A = /* @__PURE__ *\/ (() => z.object({...}).extend(...))()`.
 */
export function pureSchemas(source: string, fileName = 'types.js'): string {
  // Loaded here, not with the module: only writing a new copy needs the parser, and every synth imports this file.
  const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const edits: { start: number; end: number; text: string }[] = [];
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer;
      if (!init || !ts.isCallExpression(init)) continue;
      const start = init.getStart(file);
      edits.push({
        start,
        end: init.getEnd(),
        text: `/* @__PURE__ */ (() => ${source.slice(start, init.getEnd())})()`,
      });
    }
  }
  let out = source;
  for (const edit of edits.reverse()) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

/**
 * The server's methods that send a request to the client, by file of the package's `dist/esm`: `Server`'s
 * sampling (`createMessage`), elicitation (`elicitInput`) and roots (`listRoots`) requests, and the streaming
 * forms of the first two (`ExperimentalServerTasks`, `server.experimental.tasks`). The jobs MCP server
 * (shared/mcp/server.ts) answers requests and sends none of these.
 */
export const UNSENT_REQUESTS: Readonly<Record<string, readonly string[]>> = {
  'server/index.js': ['createMessage', 'elicitInput', 'listRoots'],
  'experimental/tasks/server.js': ['createMessageStream', 'elicitInputStream'],
};

/**
 * `source` with the body of each named class method replaced by a `throw`, so that what only those bodies
 * referenced is not bundled. Fails if a method is missing or named twice: a new SDK version moved it, and the
 * list needs a look.
 */
export function unsentRequests(source: string, methods: readonly string[], fileName: string): string {
  const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const bodies = new Map<string, { start: number; end: number }[]>();
  const visit = (node: TypeScript.Node): void => {
    if (ts.isMethodDeclaration(node) && node.body && methods.includes(node.name.getText(file))) {
      const name = node.name.getText(file);
      bodies.set(name, [
        ...(bodies.get(name) ?? []),
        { start: node.body.getStart(file), end: node.body.getEnd() },
      ]);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const edits = methods.map((method) => {
    const found = bodies.get(method) ?? [];
    if (found.length !== 1) {
      throw new Error(
        `${fileName}: expected one method ${method}, found ${found.length} (a new MCP SDK version?)`,
      );
    }
    const message = `${method}: the jobs MCP server sends no such request (infra/constructs/mcp-sdk-bundle.ts)`;
    return { ...found[0]!, text: `{ throw new Error(${JSON.stringify(message)}); }` };
  });
  let out = source;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  }
  return out;
}

/**
 * The directory to alias `@modelcontextprotocol/sdk` to in the Mcp bundle: a copy of the package's
 * `dist/esm` JavaScript files with types.js passed through pureSchemas() and the files of UNSENT_REQUESTS
 * through unsentRequests(), written on first use.
 */
export function mcpSdkForBundle(repoRoot: string): string {
  const packageDir = join(repoRoot, 'node_modules/@modelcontextprotocol/sdk');
  const esm = join(packageDir, 'dist/esm');
  const types = readFileSync(join(esm, 'types.js'), 'utf8');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const key = createHash('sha256')
    .update(`${TRANSFORM_VERSION}\n${version}\n${types}`)
    .digest('hex')
    .slice(0, 16);
  const cache = join(repoRoot, 'node_modules/.cache/wf-runtime', `mcp-sdk-${key}`);
  const copy = join(cache, 'node_modules/@modelcontextprotocol/sdk');
  const target = join(copy, 'dist/esm');
  if (existsSync(join(target, 'types.js'))) return target;

  // Written beside the target and renamed into place: a concurrent synth or test run sees a whole copy or none.
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(cache, 'staging-'));
  // The package's own package.json beside the copy: esbuild reads a file's module type and `sideEffects` from
  // the nearest one, which would otherwise be the repository's.
  writeFileSync(join(staging, 'package.json'), readFileSync(join(packageDir, 'package.json')));
  for (const path of javascriptFiles(esm)) {
    const name = relative(esm, path);
    const to = join(staging, 'dist/esm', name);
    mkdirSync(dirname(to), { recursive: true });
    const text = readFileSync(path, 'utf8');
    const unsent = UNSENT_REQUESTS[name];
    writeFileSync(
      to,
      name === 'types.js' ? pureSchemas(text) : unsent ? unsentRequests(text, unsent, name) : text,
    );
  }
  mkdirSync(dirname(copy), { recursive: true });
  try {
    renameSync(staging, copy);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(target, 'types.js'))) throw error;
  }
  return target;
}

function javascriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return javascriptFiles(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}
