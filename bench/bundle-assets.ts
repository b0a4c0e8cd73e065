/**
 * The Lambda bundles of a synthesized cloud assembly: each `AWS::Lambda::Function` of the template mapped to
 * its asset directory (`aws:asset:path` metadata) and named after its construct (`.../Functions/<Name>/...`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** One function's bundle: where it is, its entry file, and what the template configures for it. */
export type FunctionBundle = {
  name: string;
  assetDir: string;
  entry: string;
  memoryMb: number | undefined;
  /** The function's environment variables that are plain strings (CloudFormation references left out). */
  env: Record<string, string>;
};

type TemplateResource = {
  Type: string;
  Metadata?: Record<string, unknown>;
  Properties?: { MemorySize?: number; Environment?: { Variables?: Record<string, unknown> } };
};

/** The construct name a function is known by: the path segment before `/Function/Resource`. */
export function functionNameOf(cdkPath: string): string {
  const parts = cdkPath.split('/');
  const at = parts.lastIndexOf('Function');
  return at > 0 ? parts[at - 1]! : cdkPath;
}

/** The bundled functions of `template` whose assets live under `assemblyDir`, sorted by name. */
export function functionBundles(
  template: { Resources?: Record<string, TemplateResource> },
  assemblyDir: string,
): FunctionBundle[] {
  const bundles: FunctionBundle[] = [];
  for (const resource of Object.values(template.Resources ?? {})) {
    const assetPath = resource.Metadata?.['aws:asset:path'];
    const cdkPath = resource.Metadata?.['aws:cdk:path'];
    if (resource.Type !== 'AWS::Lambda::Function' || typeof assetPath !== 'string') continue;
    const assetDir = join(assemblyDir, assetPath);
    const entry = readdirSync(assetDir).find((file) => file === 'index.mjs' || file === 'index.js');
    if (entry === undefined) throw new Error(`asset ${assetDir} has no index.mjs or index.js`);
    const variables = resource.Properties?.Environment?.Variables ?? {};
    bundles.push({
      name: typeof cdkPath === 'string' ? functionNameOf(cdkPath) : assetPath,
      assetDir,
      entry: join(assetDir, entry),
      memoryMb: resource.Properties?.MemorySize,
      env: Object.fromEntries(
        Object.entries(variables).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      ),
    });
  }
  return bundles.sort((a, b) => a.name.localeCompare(b.name));
}

/** Bytes of the code Lambda loads (every .js/.mjs/.cjs file of the asset, source maps excluded) and gzipped. */
export function codeSize(assetDir: string): { bytes: number; gzipBytes: number } {
  let bytes = 0;
  let gzipBytes = 0;
  for (const file of readdirSync(assetDir)) {
    if (!/\.(m|c)?js$/.test(file)) continue;
    const path = join(assetDir, file);
    bytes += statSync(path).size;
    gzipBytes += gzipSync(readFileSync(path)).length;
  }
  return { bytes, gzipBytes };
}

/**
 * Bytes of the lazy libraries shipped beside the bundle (`node_modules/wf-lazy/*.js`,
 * infra/constructs/lazy-libraries.ts): in the deployment package, but loaded only by an invocation that uses one.
 */
export function lazyLibraryBytes(assetDir: string): number {
  const dir = join(assetDir, 'node_modules/wf-lazy');
  if (!existsSync(dir)) return 0;
  return readdirSync(dir)
    .filter((file) => file.endsWith('.js'))
    .reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
}

/** How many bytes of a bundle come from each source file, by the bundle's source map (`index.js.map`). */
export function bytesBySource(entry: string): Map<string, number> {
  const map = JSON.parse(readFileSync(`${entry}.map`, 'utf8'));
  const sourceMap = new SourceMap(map);
  const bySource = new Map<string, number>();
  // Sampling every STEP bytes of each generated line: exact to within STEP bytes per mapping boundary, which
  // is far below the KB this bench prints, and fast enough for a 1 MB minified file.
  const STEP = 8;
  readFileSync(entry, 'utf8')
    .split('\n')
    .forEach((line, lineOffset) => {
      for (let column = 0; column < line.length; column += STEP) {
        const found = sourceMap.findEntry(lineOffset, column);
        const source = 'originalSource' in found ? found.originalSource : '(unmapped)';
        bySource.set(source, (bySource.get(source) ?? 0) + Math.min(STEP, line.length - column));
      }
    });
  return bySource;
}
