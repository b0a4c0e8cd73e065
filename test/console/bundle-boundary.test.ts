/**
 * The console is an operator surface (STYLE.md "Operator surfaces stay at the edge"): no Lambda function may
 * bundle it, nor the graph layout library it draws graph runs with (@dagrejs/dagre). esbuild resolves each handler's import graph as the deployment's bundling does (@aws-sdk/*
 * external) and the graph must hold nothing under shared/console/.
 */
import { readdirSync } from 'node:fs';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { importGraph } from '../support/import-graph.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const HANDLERS = readdirSync(new URL('../../functions/', import.meta.url)).filter((name) =>
  name.endsWith('.ts'),
);

describe('bundle boundary: the console', () => {
  // One build of every handler: esbuild parses each shared module once instead of once per handler, and each
  // handler's graph is read from the metafile (the same files a build of that handler alone lists).
  let metafile: Metafile;
  beforeAll(async () => {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: HANDLERS.map((handler) => `functions/${handler}`),
      outdir: 'bundle-boundary',
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      external: ['@aws-sdk/*'],
      logLevel: 'silent',
    });
    metafile = result.metafile;
  }, 120_000);

  it.each(HANDLERS)('functions/%s imports nothing under shared/console/', (handler) => {
    const inputs = importGraph(metafile, `functions/${handler}`);
    expect(inputs.some((path) => path.startsWith('functions/'))).toBe(true);
    expect(inputs.filter((path) => path.startsWith('shared/console/'))).toEqual([]);
    // The graph layout library is the console's alone: no Lambda pays for its bytes.
    expect(inputs.filter((path) => path.includes('node_modules/@dagrejs/'))).toEqual([]);
  });
});
