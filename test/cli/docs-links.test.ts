/** The pages this suite owns link only to files and headings that exist. */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const DOCS = new URL('../../docs/', import.meta.url);
const PAGES = ['cli.md', 'api.md', 'console.md', 'workflow-file.md', 'security.md'];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replaceAll(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');

function anchors(file: URL): Set<string> {
  const text = readFileSync(file, 'utf8').replaceAll(/^```[\s\S]*?^```$/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1]!)));
}

const links = PAGES.flatMap((page) => {
  const text = readFileSync(new URL(page, DOCS), 'utf8').replaceAll(/^```[\s\S]*?^```$/gm, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^https?:/.test(target))
    .map((target) => [page, target] as const);
});

describe('links in docs/cli.md, docs/api.md, docs/console.md, docs/workflow-file.md, docs/security.md', () => {
  it('finds links to check', () => {
    expect(links.length).toBeGreaterThan(20);
  });

  it.each(links)('%s → %s exists', (page, target) => {
    const [path, anchor] = target.split('#');
    const file = new URL(path || page, DOCS);

    expect(existsSync(file)).toBe(true);
    if (anchor) expect([...anchors(file)]).toContain(anchor);
  });
});
