import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const PURE = ['contract.ts', 'errors.ts', 'ports.ts', 'registry.ts', 'index.ts'];
const source = (file: string) =>
  readFileSync(new URL(`../../shared/external/${file}`, import.meta.url), 'utf8');
const imports = (text: string) => [...text.matchAll(/from '([^']+)'/g)].map((match) => match[1]);

describe('shared/external contract purity', () => {
  it.each(PURE)('%s imports only zod (shared/zod.ts), its siblings and core port types', (file) => {
    const text = source(file);
    for (const specifier of imports(text)) {
      expect(
        ['../zod.ts', '../core/ports.ts'].includes(specifier ?? '') ||
          /^\.\/[a-z-]+\.ts$/.test(specifier ?? ''),
      ).toBe(true);
    }
    expect(text).not.toMatch(/process\.env|Date\.now\(|@aws-sdk|node:/);
  });

  it('imports from core only as types', () => {
    for (const file of PURE) {
      for (const line of source(file)
        .split('\n')
        .filter((l) => l.includes("'../core/ports.ts'"))) {
        expect(line).toMatch(/^import type /);
      }
    }
  });
});
