/**
 * The query parameters the serving code reads by name outside the OpenAPI document (the console's and the
 * approval and human-task pages'), found by scanning the source, for the tenancy check (tenancy-routes.test.ts):
 * each must be probed with one of owner A's values by a row of ROUTES, or be exempt with its reason
 * (QUERY_EXEMPTIONS, tenancy-fixtures.ts). The API's own query parameters are the OpenAPI document's
 * (tenancy-fields.ts); its routes read them whole through validateQuery (shared/api/body.ts).
 *
 * A read by name is any of: `c.req.query('name')`, `c.req.queries('name')`, `….searchParams.get('name')`, a
 * reader handed to a helper as `query` and called `query('name')` (read-hints.ts), and `x.get('name')` (or
 * `getAll`, `has`) on a `query` or on any parameter declared `x: URLSearchParams` (the console's pages and
 * pager). A read whose name the scan cannot see (the whole query, `c.req.query(name)`, the searchParams handed
 * on) must be one of the reviewed sites (QUERY_HANDED_ON), each saying where its names are read by literal.
 */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The code that serves requests (the API, the pages, the console, the MCP server, the local stack, the
 * handlers), each directory with the paths of the routes it answers: a name read there is bound only by a
 * probe of one of those routes.
 */
const SURFACES = {
  api: ['/v1/'],
  'approvals-http': ['/approvals/'],
  console: ['/console'],
  'human-tasks': ['/human-tasks/'],
  local: ['/local/'],
  mcp: ['/mcp'],
  runtime: ['/'],
} as const;
export const SERVING_DIRS = Object.keys(SURFACES) as (keyof typeof SURFACES)[];

/** Whether `route` (`METHOD /path`) is one the code of `file` (`shared/<dir>/…`) answers. */
export const answers = (file: string, route: string): boolean =>
  (SURFACES[file.split('/')[1] as keyof typeof SURFACES] ?? ['/']).some((prefix) =>
    route.split(' ')[1]?.startsWith(prefix),
  );

/** A query parameter read by name, and the file (`shared/…`) that reads it. */
export type QueryRead = { name: string; file: string };

/** What the scan found: the names read, and the sites that read the query without naming (`file: code`). */
export type QueryScan = { named: QueryRead[]; handedOn: string[] };

/**
 * The sites that read the query without naming a parameter, each with where its names are read instead. A new
 * one fails the check until it is reviewed here (or names its parameters by literal).
 */
export const QUERY_HANDED_ON: Record<string, string> = {
  'shared/api/body.ts: c.req.queries()':
    "validateQuery: the API's query, parsed by each route's zod schema, whose parameters the OpenAPI document declares (tenancy-fields.ts)",
  'shared/approvals-http/route-page.ts: c.req.query(name)':
    "readHintsOf's reader: read-hints.ts reads its names as `query('…')`, found by the scan",
  'shared/approvals-http/route-decide.ts: c.req.query(name)':
    "readHintsOf's reader: read-hints.ts reads its names as `query('…')`, found by the scan",
  'shared/console/app.ts: new URL(c.req.url).searchParams':
    'the query handed to a console page as `query: URLSearchParams`, read by `query.get(…)` (pages/*.ts, pager.ts), found by the scan',
  'shared/console/app.ts: query(c)':
    'the same query (`const query = (c) => new URL(c.req.url).searchParams`) handed to a console page',
};

/** Source without its comments, so a name in prose is not a read. */
export const code = (source: string) =>
  source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** A string literal's text, or undefined for anything else. */
export const literal = (arg: string) => /^(['"`])([^'"`$]*)\1$/.exec(arg.trim())?.[2];

/** The text of a call's arguments, from just after its `(` to its matching `)`. */
export function argumentAt(text: string, start: number): string {
  let depth = 0;
  for (let end = start; end < text.length; end++) {
    if (text[end] === '(') depth++;
    else if (text[end] === ')' && depth-- === 0) return text.slice(start, end);
  }
  return text.slice(start);
}

/** Scans one file's source (`file` as `shared/…`). */
export function scanQueryReads(file: string, source: string): QueryScan {
  const text = code(source);
  const named: QueryRead[] = [];
  const handedOn = new Set<string>();
  const read = (call: string, arg: string) => {
    const name = literal(arg);
    if (name !== undefined) named.push({ name, file });
    else handedOn.add(`${file}: ${call}(${arg.trim()})`);
  };
  // Receivers of URLSearchParams: every parameter so declared in this file, and `query` (the API's routes name
  // their parsed query so too, whose fields are the OpenAPI document's: only its `.get(…)` counts here).
  const declared =
    [...text.matchAll(/\b(\w+)\??:\s*URLSearchParams\b/g)].map((m) => m[1]).join('|') || '(?!)';
  const receiver = `query|${declared}`;
  const calls = new RegExp(
    `(\\breq\\.quer(?:y|ies)|(?<![.\\w])query|\\.searchParams\\.(?:get|getAll|has)|(?<![.\\w])(?:${receiver})\\.(?:get|getAll|has))\\(`,
    'g',
  );
  for (const match of text.matchAll(calls))
    read((match[1] ?? '').replace(/^.*req\./, 'c.req.'), argumentAt(text, match.index + match[0].length));
  // The query read whole: the searchParams handed on (a write to a URL being built is no read), the reader
  // itself, or a query iterated, spread or listed (handing it to a function that declares it is no read: the
  // function's reads are scanned).
  const whole = [
    /(?:new URL\([^()]*\)|[\w.]*)\.searchParams\b(?!\.(?:get|getAll|has|set|append|delete)\()/g,
    /[\w.]*\breq\.quer(?:y|ies)\b(?!\s*\()/g,
    new RegExp(`(?:\\bof\\s+|\\.\\.\\.|fromEntries\\(\\s*)(?:${declared})\\b`, 'g'),
    new RegExp(`(?<![.\\w])(?:${declared})\\.(?!(?:get|getAll|has|set|append|delete)\\()\\w+`, 'g'),
  ];
  for (const pattern of whole) for (const [site] of text.matchAll(pattern)) handedOn.add(`${file}: ${site}`);
  return { named, handedOn: [...handedOn] };
}

/** Every TypeScript file of the serving code (SERVING_DIRS under shared/), with its source. */
export function servingSources(): { file: string; source: string }[] {
  return SERVING_DIRS.flatMap((dir) => {
    const root = new URL(`../../shared/${dir}/`, import.meta.url);
    return readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => ({ file: `shared/${dir}/${file}`, source: readFileSync(new URL(file, root), 'utf8') }));
  });
}

/** `scan` over every file of the serving code: the reads it names, and the sites handed on, once each, sorted. */
export function scanServingCode<Read>(
  scan: (file: string, source: string) => { named: Read[]; handedOn: string[] },
): { named: Read[]; handedOn: string[] } {
  const named: Read[] = [];
  const handedOn = new Set<string>();
  for (const { file, source } of servingSources()) {
    const found = scan(file, source);
    named.push(...found.named);
    for (const site of found.handedOn) handedOn.add(site);
  }
  return { named, handedOn: [...handedOn].sort() };
}

/** Every query read of the serving code (SERVING_DIRS under shared/). */
export const queryReads = (): QueryScan => scanServingCode(scanQueryReads);
