/**
 * Where a bundle's cold import spends its CPU: a fresh Node.js process imports the entry under the V8 sampling
 * profiler (started just before `import()`, stopped after it), and each sample's function is mapped back to its
 * source through the bundle's source map (`index.js.map`; or, for a module loaded from node_modules, through
 * its file path) and counted against a package group. Time in the bundle's module scope
 * itself (the top-level statements of every ESM module esbuild hoisted into one scope, and compiling the
 * file) is its own group; calls made from there (e.g. `z.object(...)`) count against the callee's package.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LOAD } from './import-time.ts';

const CHILD = `
${LOAD}
const { Session } = await import('node:inspector/promises');
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
await session.post('Profiler.start');
const cpu = process.cpuUsage();
await load(process.argv[1]);
const used = process.cpuUsage(cpu);
const { profile } = await session.post('Profiler.stop');
const cpuMs = (used.user + used.system) / 1000;
(await import('node:fs')).writeFileSync(process.argv[2], JSON.stringify({ profile, cpuMs }));
process.exit(0);
`;

type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; hitCount?: number; children?: number[] };
type CpuProfile = { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[] };

/** The groups the profile table prints as columns, in order; any other package is summed in `other`. */
export const GROUPS = [
  'compile bundle',
  'bundle top level',
  'esbuild helpers',
  'our modules',
  'zod',
  'AWS SDK',
  'Anthropic SDK',
  'Powertools',
  'MCP SDK',
  'ajv',
  'node built-ins',
  "node:http's ESM facade (undici)",
  'node loader (resolve, link)',
  'GC',
] as const;

/**
 * Packages bundled only as the AWS SDK's own dependencies: its XML parser and tslib, and the LRU cache of the
 * DynamoDB client's endpoint cache (`@aws-sdk/endpoint-cache` → mnemonist → obliterator).
 */
const SDK_DEPENDENCIES = ['fast-xml-parser', 'tslib', 'mnemonist', 'obliterator'];

export function groupOfPath(path: string): string {
  // The last node_modules/ of the path: the Mcp bundle's copy of the MCP SDK is under node_modules/.cache/.
  const pkg = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
  if (pkg === undefined) return /(^|\/)(shared|functions)\//.test(path) ? 'our modules' : path;
  if (/^@(aws-sdk|smithy|aws-crypto)\//.test(pkg) || SDK_DEPENDENCIES.includes(pkg)) return 'AWS SDK';
  if (pkg.startsWith('@anthropic-ai/')) return 'Anthropic SDK';
  if (pkg.startsWith('@aws-lambda-powertools/')) return 'Powertools';
  if (pkg === 'zod' || pkg === 'zod-to-json-schema') return 'zod';
  if (pkg === 'ajv' || pkg === 'ajv-formats' || pkg === 'fast-uri' || pkg === 'json-schema-traverse')
    return 'ajv';
  if (pkg === '@modelcontextprotocol/sdk') return 'MCP SDK';
  return pkg;
}

/** CPU milliseconds of `samples` profiled imports of `entry` (the mean), by group. */
export function importProfile(
  entry: string,
  env: Record<string, string>,
  samples: number,
): Map<string, number> {
  const sum = new Map<string, number>();
  for (let i = 0; i < samples; i++) {
    for (const [group, ms] of profiledImport(entry, env))
      sum.set(group, (sum.get(group) ?? 0) + ms / samples);
  }
  return sum;
}

function profiledImport(entry: string, env: Record<string, string>): Map<string, number> {
  const dir = mkdtempSync(join(tmpdir(), 'wf-import-profile-'));
  try {
    const out = join(dir, 'import.cpuprofile');
    execFileSync(process.execPath, ['--input-type=module', '--eval', CHILD, pathToFileURL(entry).href, out], {
      env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', ...env },
    });
    const { profile, cpuMs } = JSON.parse(readFileSync(out, 'utf8')) as {
      profile: CpuProfile;
      cpuMs: number;
    };
    return attribute(profile, entry, cpuMs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function attribute(profile: CpuProfile, entry: string, cpuMs: number): Map<string, number> {
  const bundleUrl = pathToFileURL(entry).href;
  const map = existsSync(`${entry}.map`)
    ? new SourceMap(JSON.parse(readFileSync(`${entry}.map`, 'utf8')))
    : undefined;
  const parents = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node);
  const ticks = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    if (!node.hitCount || node.callFrame.functionName === '(idle)') continue;
    const group = groupOf(node, parents, bundleUrl, map);
    ticks.set(group, (ticks.get(group) ?? 0) + node.hitCount);
    total += node.hitCount;
  }
  // Samples say where the time went; the process's CPU clock says how much there was (under load, wall-clock
  // sampling intervals include time the process was not running).
  return new Map([...ticks].map(([group, count]) => [group, (count / Math.max(1, total)) * cpuMs]));
}

function stackOf(node: ProfileNode, parents: Map<number, ProfileNode>): ProfileNode[] {
  const stack: ProfileNode[] = [];
  for (let at: ProfileNode | undefined = node; at; at = parents.get(at.id)) stack.push(at);
  return stack;
}

// The harness's own `--eval` script is a file: URL too; what runs under it is Node's loader.
const isNodeInternal = (frame: CallFrame) => !frame.url.startsWith('file:') || frame.url.endsWith(']');

/**
 * The group of a sample: its own function's package, or for Node's internal work, what that work was for
 * (compiling the bundle, loading a built-in module, loading the external SDK's CommonJS files, or the package
 * whose code called into Node).
 */
function groupOf(
  node: ProfileNode,
  parents: Map<number, ProfileNode>,
  bundleUrl: string,
  map: SourceMap | undefined,
): string {
  const frame = node.callFrame;
  if (frame.functionName === '(garbage collector)') return 'GC';
  if (!isNodeInternal(frame)) return groupOfFrame(frame, bundleUrl, map);
  const stack = stackOf(node, parents);
  const names = new Set(stack.map((at) => at.callFrame.functionName));
  if (names.has('lazyUndici')) return "node:http's ESM facade (undici)";
  if (names.has('compileForInternalLoader')) return 'node built-ins';
  // Only the external @aws-sdk/* packages are loaded from node_modules (an ESM import or a require of them).
  if (names.has('loadCJSModuleWithModuleLoad')) return 'AWS SDK';
  const caller = stack.find((at) => !isNodeInternal(at.callFrame));
  if (!caller) {
    const compiling = ['compileSourceTextModule', 'wrapSafe', 'compileFunction'].some((name) =>
      names.has(name),
    );
    return compiling ? 'compile bundle' : 'node loader (resolve, link)';
  }
  if (names.has('wrapModuleLoad') || names.has('Module._load')) return 'AWS SDK';
  return groupOfFrame(caller.callFrame, bundleUrl, map);
}

function groupOfFrame(frame: CallFrame, bundleUrl: string, map: SourceMap | undefined): string {
  if (frame.url === bundleUrl) {
    if (frame.functionName === '' && frame.lineNumber === 0 && frame.columnNumber === 0) {
      return 'bundle top level';
    }
    const origin = map?.findEntry(frame.lineNumber, frame.columnNumber);
    const source = origin && 'originalSource' in origin ? origin.originalSource : undefined;
    // Unmapped positions are esbuild's own helpers at the top of the bundle: \`keepNames\` (one
    // defineProperty per named function and class) and the lazy-init wrappers of CommonJS modules.
    return source ? groupOfPath(source) : 'esbuild helpers';
  }
  return groupOfPath(frame.url);
}
