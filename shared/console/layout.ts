/**
 * The console's page shell and its response headers. No script and no external resource: the CSP is the
 * approval pages' (default-src 'none', inline styles only, forms to self, no framing). A live run refreshes
 * itself with `<meta http-equiv="refresh">`, which needs no script.
 */
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { APPROVAL_PAGE_HEADERS } from '../approvals/headers.ts';

/** Headers of every console response (the approval pages' strict set). */
export const CONSOLE_HEADERS = APPROVAL_PAGE_HEADERS;

export type Fragment = HtmlEscapedString | Promise<HtmlEscapedString>;

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{background:#1b1f24;color:#fff;padding:.6rem 1.2rem;display:flex;gap:1.2rem;align-items:center}
header a{color:#cfe3ff;text-decoration:none}header form{margin-left:auto}
main{padding:1rem 1.2rem;max-width:72rem}
table{border-collapse:collapse;width:100%;background:#fff}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e3e6ea;vertical-align:top}
th{background:#eef1f4;font-weight:600}.denied td{background:#fde8e8}.denied .what{color:#a40000;font-weight:600}
.ok{color:#0a6b2a;font-weight:600}.bad{color:#a40000;font-weight:600}.muted{color:#66707a}
pre{white-space:pre-wrap;background:#fff;border:1px solid #e3e6ea;padding:.5rem;margin:.2rem 0}
form.inline{display:inline}button{cursor:pointer}label{margin-right:.6rem}
.status{padding:.05rem .4rem;border-radius:.3rem;background:#eef1f4}
.graph{overflow-x:auto;background:#fff;border:1px solid #e3e6ea;padding:.5rem}
.legend{list-style:none;display:flex;flex-wrap:wrap;gap:.4rem 1rem;padding:0}.legend svg{vertical-align:middle}
`;

/** A full console page; `refreshSeconds` makes a live page poll by reloading itself. */
export function page(
  title: string,
  body: Fragment | string,
  options: { signedIn?: boolean; refreshSeconds?: number } = {},
): Fragment {
  const refresh =
    options.refreshSeconds === undefined
      ? ''
      : html`<meta http-equiv="refresh" content="${options.refreshSeconds}">`;
  const nav = options.signedIn
    ? html`<a href="/console/workflows">Workflows</a><a href="/console/runs">Runs</a>
<a href="/console/approvals">Approvals</a><a href="/console/human-tasks">Human tasks</a>
<a href="/console/jobs">Jobs</a><a href="/console/grants">Grants</a>
<form method="post" action="/console/logout"><button type="submit">Sign out</button></form>`
    : '';
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>${title} · wf console</title><style>${raw(STYLE)}</style></head>
<body><header><strong>wf console</strong>${nav}</header><main><h1>${title}</h1>${body}</main></body></html>`;
}

/** `YYYY-MM-DD HH:MM:SS UTC` for an ISO time or epoch ms; an em dash when absent. */
export function when(value: string | number | undefined): string {
  if (value === undefined) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? '—' : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** US dollars with enough places for a single cheap model call. */
export const usd = (value: number | undefined) => (value === undefined ? '—' : `$${value.toFixed(6)}`);
