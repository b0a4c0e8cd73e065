/**
 * `node bench/bundle-contents.ts api mcp workflow-write` — what is in each function's bundle: esbuild's
 * metafile of `functions/<name>.ts` bundled as RuntimeFunction bundles it (test/support/lambda-bundle.ts),
 * output bytes per npm package and per repository directory, largest first. Sizes to compare with
 * `npm run bench:bundles` (which measures the synthesized assets). Asserts nothing.
 */
import { lambdaBundle } from '../test/support/lambda-bundle.ts';
import { printTable } from './support.ts';

const TOP = 15;

async function contents(handler: string): Promise<{ bytes: number; parts: [string, number][] }> {
  const output = await lambdaBundle(handler);
  const parts = new Map<string, number>();
  for (const [path, input] of Object.entries(output.inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
    const key = pkg ?? `(repo) ${path.split('/').slice(0, 2).join('/')}`;
    parts.set(key, (parts.get(key) ?? 0) + input.bytesInOutput);
  }
  return { bytes: output.bytes, parts: [...parts].sort((a, b) => b[1] - a[1]) };
}

const handlers = process.argv.slice(2);
if (handlers.length === 0) throw new Error('name the handlers: node bench/bundle-contents.ts api mcp');
for (const handler of handlers) {
  const { bytes, parts } = await contents(handler);
  printTable(
    `${handler}: ${(bytes / 1024).toFixed(0)} KB (the ${TOP} largest parts)`,
    parts.slice(0, TOP).map(([part, size]) => ({ part, KB: (size / 1024).toFixed(1) })),
  );
}
