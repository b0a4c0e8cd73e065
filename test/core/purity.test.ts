/**
 * The core stays pure (shared/core/ports.ts): nothing it runs, itself or through what it imports, loads an AWS
 * SDK, the Anthropic SDK or CDK, reads `process.env` or reads a clock of its own. esbuild resolves the import
 * graph of every module of shared/core as bundling does (type-only imports are erased; packages left external,
 * so each one imported is named in the metafile), and every file the graph reaches is checked.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const FORBIDDEN_PACKAGES = [/^@aws-sdk\//, /^@anthropic-ai\//, /^@smithy\//, /^aws-cdk-lib/];

/** Whether `pattern` matches `source` outside comments. */
const inCode = (source: string, pattern: RegExp) =>
  source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .some((line) => pattern.test(line.replace(/\/\/.*$/, '')));
const readsEnvironment = (source: string) => inCode(source, /\bprocess\.env\b/);
const readsClock = (source: string) => inCode(source, /\bDate\.now\(\)|\bnew Date\(\)/);

describe('the core is pure', () => {
  const entries = readdirSync(join(ROOT, 'shared/core'))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `shared/core/${name}`);
  let metafile: Metafile;
  beforeAll(async () => {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: entries,
      outdir: 'core-purity',
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });
    metafile = result.metafile;
  }, 120_000);
  /** Every file the core's graph reaches (the core's own modules included). */
  const reached = () => Object.keys(metafile.inputs);

  it('reaches no AWS SDK, Anthropic SDK or CDK package, itself or through what it imports', () => {
    // Act
    const offending = Object.entries(metafile.inputs).flatMap(([file, input]) =>
      input.imports
        .filter((imported) => imported.external)
        .filter((imported) => FORBIDDEN_PACKAGES.some((pattern) => pattern.test(imported.path)))
        .map((imported) => `${file} loads ${imported.path}`),
    );

    // Assess: the graph reaches beyond the core (schemas, audit, ...), so the check looks past it.
    expect(reached().some((file) => !file.startsWith('shared/core/'))).toBe(true);
    expect(offending).toEqual([]);
  });

  it('reads no process.env anywhere it reaches', () => {
    // Act
    const offending = reached().filter((file) => readsEnvironment(readFileSync(join(ROOT, file), 'utf8')));

    // Assess
    expect(offending).toEqual([]);
  });

  it('reads no clock of its own (Date.now(), new Date()) anywhere it reaches: time comes through the Clock port', () => {
    // Act
    const offending = reached().filter((file) => readsClock(readFileSync(join(ROOT, file), 'utf8')));

    // Assess
    expect(offending).toEqual([]);
  });
});
