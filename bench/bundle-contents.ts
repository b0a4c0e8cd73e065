/**
 * `node bench/bundle-contents.ts api mcp workflow-write` — what is in each function's bundle: esbuild's
 * metafile of `functions/<name>.ts` bundled as RuntimeFunction bundles it (test/support/lambda-bundle.ts),
 * output bytes per npm package and per repository directory, largest first. Sizes to compare with
 * `npm run bench:bundles` (which measures the synthesized assets). Asserts nothing.
 *
 * `--why <part of a path>`: for each handler, the shortest import chain from its entry to every input whose
 * path contains it (e.g. `--why ipaddr.js/` answers "which import pulls the address library in").
 */
import { lambdaBundle, lambdaMetafile } from '../test/support/lambda-bundle.ts';
import { printTable } from './support.ts';

const TOP = 15;

async function contents(handler: string): Promise<{ bytes: number; parts: [string, number][] }> {
  const output = await lambdaBundle(handler);
  const parts = new Map<string, number>();
  for (const [path, input] of Object.entries(output.inputs)) {
    // The last node_modules/ of the path: the Mcp bundle's copy of the MCP SDK is under node_modules/.cache/.
    const pkg = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
    const key = pkg ?? `(repo) ${path.split('/').slice(0, 2).join('/')}`;
    parts.set(key, (parts.get(key) ?? 0) + input.bytesInOutput);
  }
  return { bytes: output.bytes, parts: [...parts].sort((a, b) => b[1] - a[1]) };
}

/** The shortest import chain from `functions/<handler>.ts` to each bundled input whose path holds `part`. */
async function chainsTo(handler: string, part: string): Promise<string[][]> {
  const metafile = await lambdaMetafile([handler]);
  const bundled = Object.values(metafile.outputs).find((output) => output.entryPoint !== undefined)!.inputs;
  const entry = `functions/${handler}.ts`;
  const from = new Map<string, string | undefined>([[entry, undefined]]);
  const queue = [entry];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const imported of metafile.inputs[next]?.imports ?? []) {
      if (imported.external || from.has(imported.path)) continue;
      from.set(imported.path, next);
      queue.push(imported.path);
    }
  }
  return Object.keys(bundled)
    .filter((path) => path.includes(part) && bundled[path]!.bytesInOutput > 0)
    .map((path) => {
      const chain: string[] = [];
      for (let at: string | undefined = path; at !== undefined; at = from.get(at)) chain.unshift(at);
      return chain;
    });
}

const args = process.argv.slice(2);
const whyAt = args.indexOf('--why');
const why = whyAt >= 0 ? args[whyAt + 1] : undefined;
if (whyAt >= 0 && !why) throw new Error('--why needs a part of a path, e.g. --why ipaddr.js/');
const handlers = args.filter((arg, index) => !arg.startsWith('--') && (whyAt < 0 || index !== whyAt + 1));
if (handlers.length === 0) throw new Error('name the handlers: node bench/bundle-contents.ts api mcp');
for (const handler of handlers) {
  if (why !== undefined) {
    const chains = await chainsTo(handler, why);
    console.log(`\n${handler}: ${chains.length} bundled input(s) matching ${JSON.stringify(why)}`);
    for (const chain of chains) console.log(`  ${chain.join('\n    → ')}`);
    continue;
  }
  const { bytes, parts } = await contents(handler);
  printTable(
    `${handler}: ${(bytes / 1024).toFixed(0)} KB (the ${TOP} largest parts)`,
    parts.slice(0, TOP).map(([part, size]) => ({ part, KB: (size / 1024).toFixed(1) })),
  );
}
