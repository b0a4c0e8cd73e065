/**
 * Reading a docs page's fenced code blocks, so a test checks each example against the code rather than a copy
 * of it. A page's blocks are counted too: a block added without a test fails the page's count.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export type FencedBlock = { info: string; body: string; line: number };

const root = new URL('../../', import.meta.url).pathname;

/** Every fenced block of docs/<page>.md, in page order, with its info string and the line of its opening fence. */
export function fencedBlocks(page: string): FencedBlock[] {
  const lines = readFileSync(join(root, 'docs', page), 'utf8').split('\n');
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i] ?? '');
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && line === '```');
    if (end < 0) throw new Error(`docs/${page}:${i + 1}: fence never closed`);
    blocks.push({ info: open[1] ?? '', body: lines.slice(i + 1, end).join('\n'), line: i + 1 });
    i = end;
  }
  return blocks;
}

/** The one block of a page whose body contains `marker` (a sentence or identifier unique to it). */
export function blockWith(page: string, marker: string): FencedBlock {
  const found = fencedBlocks(page).filter((block) => block.body.includes(marker));
  if (found.length !== 1) throw new Error(`docs/${page}: ${found.length} blocks contain "${marker}"`);
  return found[0] as FencedBlock;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

let exported: Set<string> | undefined;

/** Names exported (function, const, class, type) by the project's own modules: shared/, functions/, infra/. */
export function exportedNames(): Set<string> {
  if (exported) return exported;
  exported = new Set();
  for (const dir of ['shared', 'functions', 'infra']) {
    for (const file of sourceFiles(join(root, dir))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(
        /^export (?:async )?(?:function\*? |const |let |class |type |interface )(\w+)/gm,
      )) {
        exported.add(match[1] as string);
      }
    }
  }
  return exported;
}

/** Free functions and constructors a TypeScript sketch calls (`name(…)`, `new Name(…)`), not methods. */
export function calledNames(ts: string): string[] {
  const code = ts.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
  const names = [...code.matchAll(/(?<![.\w])(?:new\s+)?([A-Za-z_]\w*)\s*\(/g)].map((m) => m[1] as string);
  const keywords = new Set(['async', 'await', 'if', 'for', 'while', 'return', 'function', 'catch', 'switch']);
  return [...new Set(names.filter((name) => !keywords.has(name)))];
}

/**
 * A signed-link format block (`<publicBaseUrl>/<collection>/<id>?t=<payload>.<mac>`, `payload = …`, `mac = …`)
 * read into what a link made by the code must match: the URL template, the payload's claim names, the MAC domain.
 */
export function linkFormat(block: FencedBlock): { url: string; claims: string[]; domain: string } {
  const [url, payload, mac] = block.body.split('\n').map((line) => line.trim());
  const claims = /canonicalJSON\(\{ (.*) \}\)/.exec(payload ?? '')?.[1]?.split(', ');
  const domain = /HMAC-SHA256\(secret\[kid\], "(.*)" ‖ payload\)/.exec(mac ?? '')?.[1];
  if (!url || !claims || domain === undefined)
    throw new Error(`docs block at line ${block.line} is no link format`);
  return {
    url,
    claims: claims.map((claim) => claim.replace(/: .*$/, '')),
    domain: domain.replace('\\n', '\n'),
  };
}

const stripComments = (ts: string) => ts.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

/**
 * The text of `type Name = …;` or `interface Name { … }` (exported or not) in `ts`, comments dropped, up to
 * where its brackets close. Undefined when `ts` declares no such name.
 */
export function declaration(ts: string, name: string): string | undefined {
  const code = stripComments(ts);
  const start = new RegExp(`(?:export )?(?:type|interface) ${name}\\b`).exec(code);
  if (!start) return undefined;
  let depth = 0;
  for (let i = start.index; i < code.length; i++) {
    const char = code[i] as string;
    if ('({['.includes(char)) depth++;
    else if (')}]'.includes(char)) {
      depth--;
      if (
        depth === 0 &&
        char === '}' &&
        /^\s*interface/.test(code.slice(start.index).replace(/^export /, ''))
      )
        return code.slice(start.index, i + 1);
    } else if (char === ';' && depth === 0) return code.slice(start.index, i + 1);
  }
  return code.slice(start.index);
}

/** What a declaration promises, compared between a page and the code: its member names and string literals. */
export function shapeOf(declarationText: string): { members: string[]; literals: string[] } {
  const body = declarationText.replace(/^(?:export )?(?:type|interface) \w+(?:<[^>]*>)?/, '');
  const members = [...body.matchAll(/(?:readonly )?(\w+)\??\s*[:(]/g)].map((m) => m[1] as string);
  const literals = [...body.matchAll(/'([^']*)'/g)].map((m) => m[1] as string);
  return { members: [...new Set(members)].sort(), literals: [...new Set(literals)].sort() };
}

/**
 * The body rows of the Markdown table of docs/<page>.md whose header row is `header` (exactly as written, e.g.
 * '| state | type | what it does |'), each row split into its trimmed cells (`\|` inside a cell kept as `|`).
 */
export function tableRows(page: string, header: string): string[][] {
  const lines = readFileSync(join(root, 'docs', page), 'utf8').split('\n');
  const found = lines.flatMap((line, index) => (line.trim() === header ? [index] : []));
  if (found.length !== 1) throw new Error(`docs/${page}: ${found.length} tables with the header ${header}`);
  const rows: string[][] = [];
  for (let i = (found[0] as number) + 2; i < lines.length && lines[i]?.startsWith('|'); i++)
    rows.push(
      (lines[i] as string)
        .replaceAll('\\|', '\u0000')
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replaceAll('\u0000', '|')),
    );
  return rows;
}

/** The text of docs/<page>.md. */
export function pageText(page: string): string {
  return readFileSync(join(root, 'docs', page), 'utf8');
}
