/**
 * Lambda bundles take zod/mini, not classic zod (docs/deploy.md, "Function bundles"), and still answer with
 * zod's English messages. zod/mini sets no locale: shared/zod.ts sets it, and package.json lists that file in
 * `sideEffects` so esbuild keeps the call although the rest of the file is re-exports. In the test process
 * classic zod may be loaded (it sets English globally), so the messages are checked in a fresh Node.js process
 * running a bundle built as the Lambda bundles are.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { LAMBDA_BUNDLE_ALIASES, REPO_ROOT } from '../../infra/constructs/runtime-function.ts';
import { LAMBDA_BUILD_OPTIONS, lambdaBundle } from '../support/lambda-bundle.ts';

const dir = mkdtempSync(join(tmpdir(), 'wf-zod-mini-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('zod in the Lambda bundles', () => {
  it('WorkflowWrite, which parses every definition, bundles no classic zod', async () => {
    const { inputs } = await lambdaBundle('workflow-write');
    const zod = Object.keys(inputs).filter((path) => path.includes('node_modules/zod/'));
    expect(zod.some((path) => path.includes('/zod/v4/mini/'))).toBe(true);
    expect(zod.filter((path) => path.includes('/zod/v4/classic/'))).toEqual([]);
  }, 60_000);

  it("a bundled runtime schema answers with zod's English message, not mini's bare 'Invalid input'", async () => {
    const entry = join(dir, 'entry.ts');
    writeFileSync(
      entry,
      `import { IdempotencyKeySchema } from ${JSON.stringify(join(REPO_ROOT, 'shared/api/schemas.ts'))};\n` +
        `const result = IdempotencyKeySchema.safeParse('k'.repeat(256));\n` +
        'console.log(JSON.stringify(result.success ? null : result.error.issues.map((i) => i.message)));\n',
    );
    await build({
      ...LAMBDA_BUILD_OPTIONS,
      mainFields: [...LAMBDA_BUILD_OPTIONS.mainFields],
      entryPoints: [entry],
      alias: { ...LAMBDA_BUNDLE_ALIASES },
      outfile: join(dir, 'index.js'),
    });
    const printed = execFileSync(process.execPath, [join(dir, 'index.js')], { cwd: dir, encoding: 'utf8' });
    expect(JSON.parse(printed)).toEqual(['Too big: expected string to have <=255 characters']);
  }, 60_000);
});
