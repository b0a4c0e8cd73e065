/**
 * The files one entry point of a multi-entry esbuild build reaches: its import graph, read from the build's
 * metafile. It equals the `inputs` of a build of that entry alone (tree-shaken files included), so tests can
 * build many handlers in one esbuild call, which parses each shared module once.
 */
import type { Metafile } from 'esbuild';

export function importGraph(metafile: Metafile, entry: string): string[] {
  if (!metafile.inputs[entry]) throw new Error(`${entry} is not an input of this build`);
  const seen = new Set([entry]);
  const pending = [entry];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    for (const imported of metafile.inputs[path]?.imports ?? []) {
      if (imported.external || seen.has(imported.path)) continue;
      seen.add(imported.path);
      pending.push(imported.path);
    }
  }
  return [...seen];
}
