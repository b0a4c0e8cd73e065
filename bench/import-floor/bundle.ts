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
import { LAMBDA_BUILD_OPTIONS } from '../../test/support/lambda-bundle.ts';

export async function floorBundle(): Promise<{ assetDir: string; entry: string }> {
  const assetDir = mkdtempSync(join(tmpdir(), 'wf-import-floor-'));
  const entry = join(assetDir, 'index.js');
  await build({
    ...LAMBDA_BUILD_OPTIONS,
    mainFields: [...LAMBDA_BUILD_OPTIONS.mainFields],
    entryPoints: [join(REPO_ROOT, 'bench/import-floor/handler.ts')],
    alias: { ...LAMBDA_BUNDLE_ALIASES },
    sourcemap: 'external',
    sourcesContent: false,
    outfile: entry,
  });
  return { assetDir, entry };
}
