/** HTML building blocks of the signed pages (approvals, human tasks): escaping, invisible-character reveal, the page shell. */
import { ApprovalPageError } from './errors.ts';

/** A form may only post to a same-origin path (`/…`) or an http(s) URL; anything else is a programming error. */
export function checkPostUrl(postUrl: string): void {
  const path = postUrl.startsWith('/') && !postUrl.startsWith('//');
  if (!path && !/^https?:\/\/[^/]/i.test(postUrl)) {
    throw new ApprovalPageError('postUrl must be a same-origin path or an http(s) URL', { postUrl });
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for an HTML text node or a double- or single-quoted attribute value. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/**
 * Characters that render as nothing or reorder text (bidi overrides, zero-width, tags, line separators,
 * C1 controls, Hangul fillers): an approver must see them, or `rm -rf /` can be made to look like `ls`.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u3164\uffa0]/gu;
/** Layout controls that stay as they are. */
const KEPT = new Set(['\t', '\n', '\r']);

function codeUnits(c: string): string[] {
  return Array.from({ length: c.length }, (_, i) =>
    c.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0'),
  );
}

/** Escaped text with invisible characters shown as a visible `[U+XXXX]` marker. */
export function text(value: string): string {
  return escapeHtml(value).replace(INVISIBLE, (c) => {
    if (KEPT.has(c)) return c;
    const code = c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `<span class="ctl" title="invisible character">[U+${code}]</span>`;
  });
}

/**
 * Pretty-printed JSON, escaped, with invisible characters written as JSON `\uXXXX` escapes: what is shown
 * still parses to exactly the same value.
 */
export function jsonBlock(value: unknown): string {
  const json = JSON.stringify(value, null, 2) ?? 'null';
  return escapeHtml(json).replace(INVISIBLE, (c) => {
    if (KEPT.has(c)) return c;
    const escaped = codeUnits(c)
      .map((unit) => `\\u${unit}`)
      .join('');
    return `<span class="ctl" title="invisible character">${escaped}</span>`;
  });
}

/** `2025-01-02T03:04:05.000Z` → `2025-01-02 03:04:05 UTC`; anything unparseable is shown as given. */
export function formatInstant(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;background:#f4f5f7;color:#1c1e21;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:46rem;margin:2rem auto;padding:0 1rem}
.card{background:#fff;border:1px solid #d8dbe0;border-radius:8px;padding:1.5rem;margin-bottom:1rem}
h1{font-size:1.5rem;margin:0 0 .5rem}
h2{font-size:1.05rem;margin:1.25rem 0 .5rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dt{color:#5f6670}
dd{margin:0;overflow-wrap:anywhere}
code,pre{font:14px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:#f6f8fa;border:1px solid #d8dbe0;border-radius:6px;padding:.75rem;white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
blockquote{margin:0;padding:.5rem .75rem;border-left:4px solid #c9ced6;background:#fafbfc;white-space:pre-wrap;overflow-wrap:anywhere}
.muted{color:#5f6670;font-size:.9rem}
.warn{background:#fff4e5;border:1px solid #f0b45b;border-radius:6px;padding:.5rem .75rem;margin:.5rem 0;font-weight:600}
.ctl{background:#ffe08a;color:#5c3c00;border-radius:3px;padding:0 2px}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1rem}
button{font:inherit;font-weight:600;padding:.6rem 1.4rem;border-radius:6px;border:1px solid transparent;cursor:pointer}
.approve{background:#1a7f37;color:#fff}
.deny{background:#fff;color:#b42318;border-color:#b42318}
.submit{background:#0b57d0;color:#fff}
.field{margin:0 0 1rem}
.field label{display:block;font-weight:600;margin-bottom:.25rem}
.field input[type=text],.field input[type=number],.field textarea,.field select{width:100%;font:inherit;padding:.45rem .6rem;border:1px solid #b8bec7;border-radius:6px;background:#fff}
.field textarea{min-height:8rem;resize:vertical}
.field .check{display:flex;gap:.5rem;align-items:center;font-weight:600}
.req{color:#b42318}
.error{color:#b42318;font-weight:600;margin:.25rem 0 0}
.status-success h1{color:#1a7f37}
.status-error h1{color:#b42318}
`;

/** A complete document: no script, no external resource; referrer and robots also set in markup. */
export function page(title: string, body: string, className = ''): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<meta name="robots" content="noindex,nofollow">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    `<body${className === '' ? '' : ` class="${escapeHtml(className)}"`}>`,
    `<main>${body}</main>`,
    '</body>',
    '</html>',
  ].join('\n');
}
