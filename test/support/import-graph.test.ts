import type { Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { importGraph } from './import-graph.ts';

type Inputs = Metafile['inputs'];
const input = (...imports: { path: string; external?: boolean }[]): Inputs[string] => ({
  bytes: 1,
  imports: imports.map((each) => ({ kind: 'import-statement', ...each })),
});

describe('importGraph', () => {
  // Two entries sharing a module, a cycle, an external package and a file only the other entry imports.
  const metafile: Metafile = {
    inputs: {
      'functions/a.ts': input({ path: 'shared/common.ts' }, { path: '@aws-sdk/client-s3', external: true }),
      'functions/b.ts': input({ path: 'shared/common.ts' }, { path: 'shared/console/page.ts' }),
      'shared/common.ts': input({ path: 'shared/cycle.ts' }),
      'shared/cycle.ts': input({ path: 'shared/common.ts' }),
      'shared/console/page.ts': input(),
    },
    outputs: {},
  };

  it('follows imports transitively through a cycle, skipping externals and other entries’ files', () => {
    expect(importGraph(metafile, 'functions/a.ts').sort()).toEqual([
      'functions/a.ts',
      'shared/common.ts',
      'shared/cycle.ts',
    ]);
    expect(importGraph(metafile, 'functions/b.ts')).toContain('shared/console/page.ts');
  });

  it('refuses an entry the build did not read', () => {
    expect(() => importGraph(metafile, 'functions/c.ts')).toThrow(/functions\/c\.ts is not an input/);
  });
});
