/**
 * The README's "Layout" table names every folder of `shared/`, and only folders that exist, so a module family
 * added or renamed is not left out of the map.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const section = /## Layout\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
/** The paths in the first cell of each row (`shared/a/`, `shared/b/` …). */
const named = section
  .split('\n')
  .filter((line) => line.startsWith('| `'))
  .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((match) => match[1]!));

describe('README: layout', () => {
  it('has a row for every folder of shared/', () => {
    const folders = readdirSync(new URL('shared/', root), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `shared/${entry.name}/`);
    expect(folders.filter((folder) => !named.includes(folder))).toEqual([]);
  });

  it('names only paths that exist', () => {
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((path) => !existsSync(new URL(path, root)))).toEqual([]);
  });
});
