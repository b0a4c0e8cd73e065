import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cdkJsonContext } from '../../infra/cdk-context.ts';
import { RuntimeFunction } from '../../infra/constructs/runtime-function.ts';

let outdir: string;
let bundle: string;

beforeAll(() => {
  // A real bundle, with the local esbuild (no Docker), of one handler of the repository.
  outdir = mkdtempSync(join(tmpdir(), 'wf-bundling-'));
  const app = new App({ outdir, context: cdkJsonContext(), builtinCloudFormationValidation: false });
  new RuntimeFunction(new Stack(app, 'Bundling'), 'Expire', { handlerName: 'expire' });
  app.synth();
  const assetDir = readdirSync(outdir).find((name) => name.startsWith('asset.'));
  if (assetDir === undefined) throw new Error(`no asset directory in ${outdir}`);
  bundle = join(outdir, assetDir);
}, 120_000);

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
});

describe('RuntimeFunction bundling', () => {
  it('bundles the handler with the local esbuild into one ESM file with a source map', () => {
    expect(readdirSync(bundle).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    expect(readFileSync(join(bundle, 'index.mjs'), 'utf8')).toMatch(/sourceMappingURL=index\.mjs\.map\s*$/);
  });

  it('gives CommonJS dependencies a require through createRequire', () => {
    const code = readFileSync(join(bundle, 'index.mjs'), 'utf8');
    expect(code.startsWith("import { createRequire as __wfCreateRequire } from 'node:module';")).toBe(true);
  });

  it('exports handler (imports stay unresolved here: @aws-sdk/* is provided by the Lambda runtime)', () => {
    const code = readFileSync(join(bundle, 'index.mjs'), 'utf8');
    expect(code).toMatch(/export\s*\{[^}]*\bhandler\b[^}]*\}/);
    expect(existsSync(join(bundle, 'index.mjs.map'))).toBe(true);
  });
});
