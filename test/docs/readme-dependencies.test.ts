/**
 * The README says why each runtime dependency is there: every package in package.json's `dependencies` has a
 * row in "Runtime dependencies and why", and every package a row names is one the project declares. Its
 * "Dev dependencies:" paragraph names every package of `devDependencies`.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const section = /## Runtime dependencies and why\n([\s\S]*?)\n## /.exec(`${readme}\n## `)?.[1] ?? '';
/** The packages in the first cell of each table row (`a`, `b` …), and in the expanded powertools row. */
const named = section
  .split('\n')
  .filter((line) => line.startsWith('| `'))
  .flatMap((line) => {
    const cell = line.split('|')[1] ?? '';
    const names = [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);
    // `@aws-lambda-powertools/logger`, `metrics`, `tracer`: later names share the first one's scope.
    const scope = names[0]?.startsWith('@') ? names[0].split('/')[0] : undefined;
    return names.map((name, i) => (scope && i > 0 && !name.includes('/') ? `${scope}/${name}` : name));
  });

/** The names the "Dev dependencies:" paragraph puts in backticks. */
const devParagraph = /\nDev dependencies: ([\s\S]*?)(?:\n\n|$)/.exec(section)?.[1] ?? '';
const devNamed = [...devParagraph.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

describe('README: runtime dependencies and why', () => {
  it('has a row for every runtime dependency', () => {
    expect(Object.keys(pkg.dependencies).filter((name) => !named.includes(name))).toEqual([]);
  });

  it('names only packages the project declares', () => {
    const declared = { ...pkg.dependencies, ...pkg.devDependencies };
    expect(named.filter((name) => !(name in declared))).toEqual([]);
  });

  it('names every dev dependency in its "Dev dependencies:" paragraph', () => {
    expect(devParagraph).not.toBe('');
    expect(Object.keys(pkg.devDependencies).filter((name) => !devNamed.includes(name))).toEqual([]);
  });
});
