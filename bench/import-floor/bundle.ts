/**
 * Bundles bench/import-floor/handler.ts as RuntimeFunction bundles a function (CommonJS, node22, the packages'
 * module builds, the Lambda aliases, minified, no keepNames, an external source map) into a fresh directory,
 * for bench:bundles' floor row.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { LAMBDA_BUNDLE_ALIASES, REPO_ROOT } from '../../infra/constructs/runtime-function.ts';

export async function floorBundle(): Promise<{ assetDir: string; entry: string }> {
  const assetDir = mkdtempSync(join(tmpdir(), 'wf-import-floor-'));
  const entry = join(assetDir, 'index.js');
  await build({
    entryPoints: [join(REPO_ROOT, 'bench/import-floor/handler.ts')],
    absWorkingDir: REPO_ROOT,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    mainFields: ['module', 'main'],
    alias: { ...LAMBDA_BUNDLE_ALIASES },
    minify: true,
    keepNames: false,
    sourcemap: 'external',
    sourcesContent: false,
    outfile: entry,
    logLevel: 'silent',
  });
  return { assetDir, entry };
}
