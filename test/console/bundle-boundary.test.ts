/**
 * The console is an operator surface (STYLE.md "Operator surfaces stay at the edge"): no Lambda function may
 * bundle it, nor the graph layout library it draws graph runs with (@dagrejs/dagre). esbuild resolves each handler's import graph as the deployment's bundling does (@aws-sdk/*
 * external) and the graph must hold nothing under shared/console/.
 */
import { readdirSync } from 'node:fs';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const HANDLERS = readdirSync(new URL('../../functions/', import.meta.url)).filter((name) =>
  name.endsWith('.ts'),
);

describe('bundle boundary: the console', () => {
  it.each(HANDLERS)('functions/%s imports nothing under shared/console/', async (handler) => {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: [`functions/${handler}`],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      external: ['@aws-sdk/*'],
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((path) => path.startsWith('functions/'))).toBe(true);
    expect(inputs.filter((path) => path.startsWith('shared/console/'))).toEqual([]);
    // The graph layout library is the console's alone: no Lambda pays for its bytes.
    expect(inputs.filter((path) => path.includes('node_modules/@dagrejs/'))).toEqual([]);
  });
});
