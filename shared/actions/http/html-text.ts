/**
 * HTML → readable text for `fetch_url`: scripts, styles, navigation, embedded objects and hidden elements
 * are dropped; headings (`#`), paragraphs, list items (`-` / `1.`), table rows (`a | b`) and preformatted
 * text are kept; a link keeps its text followed by its absolute URL in parentheses.
 */
import { decodeEntities, type HtmlToken, tokenizeHtml } from './html-tokens.ts';
import { TextBuilder } from './text-builder.ts';

/** Elements dropped with everything inside them. */
const DROPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'nav',
  'iframe',
  'object',
  'canvas',
  'select',
  'textarea',
  'button',
  'dialog',
]);

/** Elements that have no end tag. */
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/** Elements whose end tag may be left out: a `hidden` one is not dropped (its end could be anywhere). */
const OPTIONAL_END = new Set(['p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'thead', 'tbody', 'tfoot', 'option']);

const BLANK_LINE = new Set([
  'p',
  'blockquote',
  'pre',
  'table',
  'figure',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'aside',
  'address',
  'hr',
]);
const LINE = new Set([
  'div',
  'dt',
  'dd',
  'tr',
  'br',
  'caption',
  'summary',
  'details',
  'form',
  'fieldset',
  'figcaption',
  'legend',
  'body',
]);

/** A page as text, with its title. */
export type HtmlText = { title: string | undefined; text: string };

type Anchor = { href: string | undefined; text: string };

/** Reduces an HTML document to text; `baseUrl` makes relative links absolute. */
export function htmlToText(html: string, baseUrl?: string): HtmlText {
  const out = new TextBuilder();
  const lists: { ordered: boolean; count: number }[] = [];
  const anchors: Anchor[] = [];
  let skip: { name: string; depth: number } | undefined;
  let title: string | undefined;
  let inTitle = false;
  let pre = 0;
  let firstCell = true;
  let base = baseUrl;

  const emit = (text: string) => {
    if (pre > 0) out.pre(text);
    else out.inline(text);
    for (const anchor of anchors) anchor.text += text;
  };

  for (const token of tokenizeHtml(html)) {
    if (skip) {
      if (token.type === 'start' && token.name === skip.name && !VOID.has(token.name)) skip.depth += 1;
      if (token.type === 'end' && token.name === skip.name && --skip.depth === 0) skip = undefined;
      continue;
    }
    if (token.type === 'text') {
      const text = decodeEntities(token.text);
      if (inTitle) title = (title ?? '') + text;
      else emit(text);
      continue;
    }
    if (token.type === 'start') {
      if (dropped(token)) {
        if (!VOID.has(token.name) && !token.selfClosing) skip = { name: token.name, depth: 1 };
        continue;
      }
      if (token.name === 'base' && token.attrs.href) base = absolute(token.attrs.href, base) ?? base;
      opening(token);
    } else {
      closing(token.name);
    }
  }
  return { title: title?.replace(/\s+/g, ' ').trim() || undefined, text: out.toString() };

  function opening(token: Extract<HtmlToken, { type: 'start' }>): void {
    const { name, attrs } = token;
    const heading = /^h([1-6])$/.exec(name);
    if (heading) {
      out.break(2);
      out.lead(`${'#'.repeat(Number(heading[1]))} `);
    } else if (name === 'title') inTitle = !token.selfClosing;
    else if (name === 'ul' || name === 'ol') {
      out.break(lists.length === 0 ? 2 : 1);
      lists.push({ ordered: name === 'ol', count: 0 });
    } else if (name === 'li') {
      const list = lists.at(-1);
      out.break(1);
      const indent = '  '.repeat(Math.max(0, lists.length - 1));
      out.lead(list?.ordered ? `${indent}${++list.count}. ` : `${indent}- `);
    } else if (name === 'tr') {
      out.break(1);
      firstCell = true;
    } else if (name === 'td' || name === 'th') {
      if (!firstCell) out.inline(' | ');
      firstCell = false;
    } else if (name === 'a') {
      anchors.push({ href: attrs.href === undefined ? undefined : absolute(attrs.href, base), text: '' });
    } else if (name === 'img') {
      const alt = attrs.alt?.trim();
      if (alt) emit(`[image: ${alt}]`);
    } else if (name === 'br') out.break(1);
    else if (name === 'hr') {
      out.break(2);
      out.lead('---');
      out.break(2);
    } else if (BLANK_LINE.has(name)) out.break(2);
    else if (LINE.has(name)) out.break(1);
    if (name === 'pre') pre += 1;
  }

  function closing(name: string): void {
    if (/^h[1-6]$/.test(name) || BLANK_LINE.has(name)) out.break(2);
    else if (name === 'ul' || name === 'ol') {
      lists.pop();
      out.break(lists.length === 0 ? 2 : 1);
    } else if (name === 'title') inTitle = false;
    else if (name === 'a') {
      const anchor = anchors.pop();
      const label = anchor?.text.replace(/\s+/g, ' ').trim() ?? '';
      if (anchor?.href && anchor.href !== label)
        out.inline(label ? ` (${anchor.href})` : `[link: ${anchor.href}]`);
    } else if (LINE.has(name) || name === 'li') out.break(1);
    if (name === 'pre' && pre > 0) pre -= 1;
  }
}

function dropped(token: Extract<HtmlToken, { type: 'start' }>): boolean {
  if (DROPPED.has(token.name)) return true;
  const hidden =
    'hidden' in token.attrs || token.attrs['aria-hidden'] === 'true' || token.attrs.type === 'hidden';
  return hidden && !OPTIONAL_END.has(token.name);
}

/** An absolute http(s) or mailto URL for a link, or undefined for in-page, script and data links. */
function absolute(href: string, base: string | undefined): string | undefined {
  const trimmed = href.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return undefined;
  try {
    const url = new URL(trimmed, base);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:'
      ? url.href
      : undefined;
  } catch {
    return undefined;
  }
}
