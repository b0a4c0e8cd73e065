/**
 * The scan of the form fields the serving code reads from a request body (tenancy-form.ts): the tenancy check
 * trusts it to find every name, however the form is read, and to report every body read whose names it cannot
 * see.
 */
import { describe, expect, it } from 'vitest';
import { scanFormReads } from './tenancy-form.ts';

const scan = (source: string) => scanFormReads('shared/x.ts', source);
const names = (source: string) => scan(source).named.map((read) => read.name);

describe('Function: scanFormReads', () => {
  it.each([
    ["const key = new URLSearchParams(await c.req.text()).get('key')?.trim() ?? '';", ['key']],
    ["const form = new URLSearchParams(await c.req.text());\nconst key = form.get('key') ?? '';", ['key']],
    ["const params = new URLSearchParams(await c.req.text());\nif (params.has('debug')) x();", ['debug']],
    // A loop over a literal list of names (route-decide.ts).
    [
      "const params = new URLSearchParams(await c.req.text());\nfor (const name of ['t', 'nonce'] as const) params.getAll(name);",
      ['t', 'nonce'],
    ],
    // A reader of the file's that returns the form, and its caller's reads (route-submit.ts).
    [
      [
        'async function readBody(c: Context): Promise<URLSearchParams | undefined> {',
        '  const params = new URLSearchParams(await c.req.text());',
        "  if (params.getAll('t').length > 1) return undefined;",
        '  return params;',
        '}',
        'const body = await readBody(c);',
        "const token = body?.get('t') ?? undefined;",
      ].join('\n'),
      ['t', 't'],
    ],
  ])('finds the names %s reads', (source, expected) => {
    expect(names(source)).toEqual(expected);
    expect(scan(source).handedOn).toEqual([]);
  });

  it.each([
    ['const body = await c.req.json();', 'shared/x.ts: c.req.json()'],
    ['const body = await c.req.parseBody();', 'shared/x.ts: c.req.parseBody()'],
    ['const data = await c.req.formData();', 'shared/x.ts: c.req.formData()'],
    ['const text = await c.req.text();', 'shared/x.ts: c.req.text()'],
    ['handle(c.req.raw, jobs)', 'shared/x.ts: c.req.raw'],
    ['use(new URLSearchParams(await c.req.text()))', 'shared/x.ts: new URLSearchParams(await c.req.text())'],
    ['const f = new URLSearchParams(await c.req.text());\nf.get(field)', 'shared/x.ts: f.get(field)'],
    ["const f = new URLSearchParams(await c.req.text());\nf.get('x-' + s)", "shared/x.ts: f.get('x-' + s)"],
    ['const f = new URLSearchParams(await c.req.text());\nfor (const [k] of f) use(k);', 'shared/x.ts: of f'],
    [
      'const f = new URLSearchParams(await c.req.text());\nObject.fromEntries(f)',
      'shared/x.ts: fromEntries(f',
    ],
    ['const f = new URLSearchParams(await c.req.text());\nf.forEach(use)', 'shared/x.ts: f.forEach'],
    ['const f = new URLSearchParams(await c.req.text());\nsubmit(c, f);', 'shared/x.ts: , f)'],
    [
      'function read(c) {\n  const f = new URLSearchParams(await c.req.text());\n  return f;\n}',
      'shared/x.ts: return f',
    ],
  ])('reports %s, whose names it cannot see', (source, site) => {
    expect(scan(source).handedOn).toEqual([site]);
    expect(names(source)).toEqual([]);
  });

  it('takes no query read, header, URL being built or comment for a form read', () => {
    const source = [
      "const t = c.req.query('t');",
      "const type = c.req.header('content-type');",
      'const cross = crossSiteReason(c.req.raw.headers, origin);',
      "const params = new URLSearchParams({ limit: '100' }); params.get('limit');",
      "// new URLSearchParams(await c.req.text()).get('commented')",
      '/* c.req.json() */',
    ].join('\n');
    expect(scan(source)).toEqual({ named: [], handedOn: [] });
  });
});
