/**
 * The scan of the query parameters the serving code reads (tenancy-query.ts): the tenancy check trusts it to
 * find every name, however it is read, and to report every read whose name it cannot see.
 */
import { describe, expect, it } from 'vitest';
import { scanQueryReads } from './tenancy-query.ts';

const scan = (source: string) => scanQueryReads('shared/x.ts', source);
const names = (source: string) => scan(source).named.map((read) => read.name);

describe('Function: scanQueryReads', () => {
  it.each([
    ["c.req.query('t')", 't'],
    ['c.req.queries("tag")', 'tag'],
    ["new URL(c.req.url).searchParams.get('after')", 'after'],
    ["url.searchParams.getAll('id')", 'id'],
    // A helper handed a reader (`readHintsOf((name) => c.req.query(name))`) reads its names as `query('…')`.
    ["const run = query('run');", 'run'],
    ["const chosen = query.get('client');", 'client'],
    ["if (query.has('debug')) return;", 'debug'],
    // A page handed the query under any name, declared URLSearchParams.
    ["function page(filters: URLSearchParams) { return filters.get('status'); }", 'status'],
  ])('finds the name %s reads', (source, name) => {
    expect(names(source)).toEqual([name]);
    expect(scan(source).handedOn).toEqual([]);
  });

  it.each([
    ['c.req.query(name)', 'shared/x.ts: c.req.query(name)'],
    ['c.req.queries()', 'shared/x.ts: c.req.queries()'],
    ['c.req.query()', 'shared/x.ts: c.req.query()'],
    ['query.get(String(query.size))', 'shared/x.ts: query.get(String(query.size))'],
    ["query.get('x-' + suffix)", "shared/x.ts: query.get('x-' + suffix)"],
    ['page(new URL(c.req.url).searchParams)', 'shared/x.ts: new URL(c.req.url).searchParams'],
    ['const all = Object.fromEntries(url.searchParams);', 'shared/x.ts: url.searchParams'],
    ['readHintsOf(c.req.query)', 'shared/x.ts: c.req.query'],
    // A query declared URLSearchParams, iterated, spread or listed.
    ['(query: URLSearchParams) => { for (const [name] of query) use(name); }', 'shared/x.ts: of query'],
    ['(query: URLSearchParams) => ({ ...query })', 'shared/x.ts: ...query'],
    ['(query: URLSearchParams) => Object.fromEntries(query)', 'shared/x.ts: fromEntries(query'],
    ['(filters: URLSearchParams) => filters.entries()', 'shared/x.ts: filters.entries'],
    ['(query: URLSearchParams) => query.forEach(use)', 'shared/x.ts: query.forEach'],
  ])('reports %s, whose name it cannot see', (source, site) => {
    expect(scan(source).handedOn).toEqual([site]);
    expect(names(source)).toEqual([]);
  });

  it('takes no form field, URL being built, or comment for a query read', () => {
    const source = [
      "const key = new URLSearchParams(await c.req.text()).get('key');",
      "url.searchParams.set('run', approval.runId);",
      "const params = new URLSearchParams({ limit: '100' }); params.set('nextToken', after);",
      "// c.req.query('commented')",
      "/* query.get('prose') */",
    ].join('\n');
    expect(scan(source)).toEqual({ named: [], handedOn: [] });
  });
});
