/**
 * The form fields the serving code reads by name from a request body (the approval and human-task pages' posts,
 * the console's and the local inbox's sign-in), found by scanning the source, for the tenancy check
 * (tenancy-routes.test.ts): each must be sent with one of owner A's values by a probe of a route that code
 * answers, or be exempt with its reason (FORM_EXEMPTIONS, tenancy-fixtures.ts). The API's JSON bodies are the
 * OpenAPI document's (tenancy-fields.ts).
 *
 * A form is `new URLSearchParams(await c.req.text())`; a field read by name is `.get('name')` (or `getAll`,
 * `has`) on the form inline, on a variable it is assigned to, or on a variable assigned `await f(…)` where `f`
 * is a function of the same file declared to return `Promise<URLSearchParams…>` (the pages' readers); a name
 * read through a loop over a literal list (`for (const name of ['t', 'nonce'])`) counts as each of them. Any
 * other read of a body (`c.req.json()`, `c.req.parseBody()`, `c.req.formData()`, the raw request handed on, a
 * form read by a name the scan cannot see, or handed on whole) must be one of the reviewed sites
 * (FORM_HANDED_ON), each saying where its names are read instead.
 */
import { argumentAt, code, literal, scanServingCode } from './tenancy-query.ts';

/** A form field read by name, and the file (`shared/…`) that reads it. */
export type FormRead = { name: string; file: string };

/** What the scan found: the names read, and the sites that read a body without naming (`file: code`). */
export type FormScan = { named: FormRead[]; handedOn: string[] };

/**
 * The sites that read a request body without naming a form field, each with where its names are read instead,
 * and, for a form whose names are its own data, which names it reads (a probe may send those). A new one fails
 * the check until it is reviewed here (or names its fields by literal).
 */
export const FORM_HANDED_ON: Record<string, { where: string; reads?: RegExp }> = {
  'shared/api/body.ts: c.req.text()': {
    where:
      "readJsonBody: the API's JSON body, parsed by each route's zod schema, whose fields the OpenAPI document declares (tenancy-fields.ts)",
  },
  'shared/api/definition-body.ts: c.req.text()': {
    where:
      'a workflow definition (JSON or YAML), parsed by the definition schema the OpenAPI document declares (tenancy-fields.ts)',
  },
  'shared/api/auth.ts: c.req.raw': {
    where: "the authenticator: it reads the request's authorization header only, never its body",
  },
  'shared/api/routes/mcp.ts: c.req.raw': {
    where:
      "the MCP transport: JSON-RPC, whose tools' arguments are probed one by one (TOOLS, tenancy-fields.ts)",
  },
  'shared/local/recording-routes.ts: c.req.raw': {
    where: "the authenticator: it reads the request's authorization header only, never its body",
  },
  'shared/local/inbox-routes.ts: c.req.raw': {
    where: "the authenticator (ownerOf): it reads the request's authorization header only, never its body",
  },
  'shared/human-tasks/route-submit.ts: body.getAll(name)': {
    where:
      "readSubmission's reader (submission.ts): the task form's own fields, `f.<name>` (inputName) of its JSON Schema: values the assignee enters, stored as the task's result and never looked up; the task and its submitter are the link's",
    reads: /^f\./,
  },
  'shared/human-tasks/route-submit.ts: body.get(inputName(f.name))': {
    where: 'the same fields, echoed into the form re-rendered with its errors',
    reads: /^f\./,
  },
};

/** The literals a loop binds `variable` to (`for (const variable of ['a', 'b'] as const)`), if any. */
function loopLiterals(text: string, variable: string): string[] | undefined {
  const loop = new RegExp(`for\\s*\\(\\s*const\\s+${variable}\\s+of\\s+\\[([^\\]]*)\\]`).exec(text);
  const names = loop?.[1]
    ?.split(',')
    .filter((item) => item.trim() !== '')
    .map(literal);
  return names?.every((name) => name !== undefined) ? (names as string[]) : undefined;
}

/** Scans one file's source (`file` as `shared/…`). */
export function scanFormReads(file: string, source: string): FormScan {
  const text = code(source);
  const named: FormRead[] = [];
  const handedOn = new Set<string>();
  const read = (call: string, arg: string) => {
    const name = literal(arg);
    const looped =
      name === undefined && /^\w+$/.test(arg.trim()) ? loopLiterals(text, arg.trim()) : undefined;
    if (name !== undefined) named.push({ name, file });
    else if (looped) named.push(...looped.map((each) => ({ name: each, file })));
    else handedOn.add(`${file}: ${call}(${arg.trim()})`);
  };
  const receivers = new Set<string>();
  const form = /new URLSearchParams\(\s*await\s+c\.req\.text\(\)\s*\)/g;
  for (const match of text.matchAll(form)) {
    const before = text.slice(0, match.index);
    const after = text.slice(match.index + match[0].length);
    const inline = /^\s*\.(get|getAll|has)\(/.exec(after);
    const assigned = /(?:const|let)\s+(\w+)\s*=\s*$/.exec(before);
    if (inline) read(`.${inline[1]}`, argumentAt(after, inline[0].length));
    else if (assigned?.[1]) receivers.add(assigned[1]);
    else if (!/return\s+$/.test(before)) handedOn.add(`${file}: ${match[0]}`);
  }
  // A reader of the file's that returns the form: what its callers assign is a form too. A form returned by any
  // other function is handed on.
  const readers = [...text.matchAll(/function\s+(\w+)\([^)]*\)\s*:\s*Promise<URLSearchParams\b/g)];
  for (const [, reader] of readers)
    for (const [, variable] of text.matchAll(
      new RegExp(`(?:const|let)\\s+(\\w+)\\s*=\\s*await\\s+${reader}\\(`, 'g'),
    ))
      if (variable) receivers.add(variable);
  for (const receiver of receivers) {
    const calls = new RegExp(`(?<![.\\w])${receiver}\\??\\.(get|getAll|has)\\(`, 'g');
    for (const match of text.matchAll(calls))
      read(`${receiver}.${match[1]}`, argumentAt(text, match.index + match[0].length));
    // The form read whole: iterated, spread, listed, any other member, handed to a function, or returned.
    const whole = new RegExp(
      [
        `(?:\\bof\\s+|\\.\\.\\.|fromEntries\\(\\s*)${receiver}\\b`,
        `(?<![.\\w])${receiver}\\??\\.(?!(?:get|getAll|has)\\()\\w+`,
        `[(,]\\s*${receiver}\\s*[,)]`,
        ...(readers.length ? [] : [`\\breturn\\s+${receiver}\\b`]),
      ].join('|'),
      'g',
    );
    for (const [site] of text.matchAll(whole)) handedOn.add(`${file}: ${site.trim()}`);
  }
  // Every other read of a body: JSON, multipart, a form parsed otherwise, the raw request handed on.
  const body =
    /(?<![\w.])(?:c\.req|req)\.(?:text|json|parseBody|formData|arrayBuffer|blob)\(\)|(?<![\w.])c\.req\.raw\b(?!\.(?:headers|url|method)\b)/g;
  const forms = new Set([...text.matchAll(form)].map((m) => m.index + m[0].indexOf('c.req.text()')));
  for (const match of text.matchAll(body)) if (!forms.has(match.index)) handedOn.add(`${file}: ${match[0]}`);
  return { named, handedOn: [...handedOn] };
}

/** Every form read of the serving code (SERVING_DIRS under shared/). */
export const formReads = (): FormScan => scanServingCode(scanFormReads);
